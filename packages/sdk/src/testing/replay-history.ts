import type { SqlHandle } from "@runifold/store";
import { isHookHistoryKey } from "../compensation/on-failure";
import { createReplayContext } from "../context";
import type { Attempt } from "../context/attempt";
import { coerceError } from "../errors";
import { encodeJson } from "../json-value";
import type { LeasedWrites } from "../leased-writes";
import { DEFAULT_LIMITS } from "../limits";
import { silentLogger } from "../logger";
import { emptyRunState, type RunState } from "../ops/load-run-state";
import { describe, ReplayHistory } from "../replay/history";
import {
  HISTORY_FORMAT,
  type HistoryOperation,
  type OperationKind,
  operationKind,
  type RunHistory,
} from "../replay/history-format";
import { type AnyWorkflow, type WorkflowContext, type WorkflowResult, workflowKey } from "../workflow";
import { parseWorkflowInput } from "../workflow-input";

/** One side of a divergence: a history key and its kind. */
export type ReplayedOperation = { key: string; kind: OperationKind };

/**
 * The workflow's code no longer matches the history it replayed: at `operation` (1-based, in call
 * order) the history recorded `expected` and the code called `got` (either may be absent: the code
 * called something the history ends before, or returned before reaching a recorded operation).
 */
export class ReplayDivergence extends Error {
  override name = "ReplayDivergence";
  constructor(
    message: string,
    readonly operation: number,
    readonly expected: ReplayedOperation | undefined,
    readonly got: ReplayedOperation | undefined,
  ) {
    super(message);
  }
}

export type ReplayReport = {
  /** Durable operations the code called and the history answered. */
  replayed: number;
  /** The run was unfinished (or failed, or was cancelled) and the code reached where its history ends. */
  reachedEnd: boolean;
  /** What the code returned, when it ran to the end. */
  result?: WorkflowResult;
  /** The code called ctx.continueAsNew after the whole history: live, this generation ends there. */
  continuedAsNew?: true;
};

/** Thrown into the workflow where an unfinished run's history ends: the replay stops there. */
class HistoryEnd extends Error {
  override name = "HistoryEnd";
}

const offline = () => new Error("replayHistory runs without a database: the workflow reached past its history");

/**
 * Replays `definition` against an exported history (`runifold tasks history <id> --json`) without a
 * database, through the worker's own ctx and non-determinism check: every durable operation the
 * code calls must be one the history recorded — at the same position where the code is sequential
 * — and nothing runs (recorded operations return their values; step bodies never execute).
 *
 * Resolves when the code matches: it replays the whole history and returns (a completed run), or
 * reaches where an unfinished, failed or cancelled run's history ends. Rejects with a
 * `ReplayDivergence` naming the operation and both sides when it does not — so CI catches a change
 * that would fail live runs with "workflow code changed under a running version".
 *
 * Only the body replays. A failed (or compensated) run's `onfailure` record and its hook's keys
 * (`onfailure:*`, `sleep:onfailure:*`, `repeat:onfailure:*`) are left out: the hook has its own
 * positions and reads the run's steps from the store, and live, a body never runs again once its
 * failure is recorded. ctx.continueAsNew ends the replay of the exported generation (the export
 * holds only the current one): the input is checked as the engine would, nothing is written, and
 * the report says `continuedAsNew` — a divergence if that generation completed instead.
 */
export async function replayHistory(definition: AnyWorkflow, history: RunHistory): Promise<ReplayReport> {
  if (history?.format !== HISTORY_FORMAT || !Array.isArray(history.operations))
    throw new Error(`not an exported history (expected format "${HISTORY_FORMAT}": runifold tasks history <id> --json)`);
  if (history.workflow.name !== definition.name)
    throw new Error(`the history is of workflow "${history.workflow.name}", not "${definition.name}"`);
  const key = workflowKey(definition.name, definition.version);
  const replay = new CheckedReplay(stateOf(history), history);
  const abort = new AbortController();
  replay.onStop = (reason) => {
    if (!abort.signal.aborted) abort.abort(reason);
  };
  const writes: LeasedWrites = { checkpoint: () => Promise.reject(offline()), finish: () => Promise.reject(offline()) };
  const created = createReplayContext({
    sql: noDatabase(),
    writes,
    lease: { runId: history.taskId, workerId: "replay", attempt: 1, leaseMs: 60_000 },
    tenantId: "replay",
    workflowKey: key,
    state: replay.recorded,
    history: replay,
    // Far in the future: every recorded timer is over, as it was when the history went on past it.
    clock: { now: () => 8.64e15 },
    limits: { ...DEFAULT_LIMITS },
    logger: silentLogger,
    retry: definition.retry,
    signal: abort.signal,
    end: (reason) => replay.onStop?.(reason),
  });
  const parse = (value: unknown) => parseWorkflowInput(definition, key, value);
  const ctx: WorkflowContext = {
    ...created.ctx,
    continueAsNew: (next) => handled(replay.continueAsNew(created.attempt, next, parse)),
  };
  const input = parse(history.input);
  let result: WorkflowResult | undefined;
  let thrown: unknown;
  try {
    result = await definition.run(ctx, input);
  } catch (error) {
    thrown = error;
  }
  abort.abort(new Error("replay over"));
  if (replay.divergence) throw replay.divergence;
  if (replay.ended) return { replayed: replay.calls, reachedEnd: true };
  if (replay.continued && history.status === "completed") {
    throw new ReplayDivergence(
      `${what(history)} diverged after operation #${replay.calls}: the run completed, and the code now continues as new`,
      replay.calls + 1,
      undefined,
      undefined,
    );
  }
  if (thrown !== undefined && !replay.continued && history.status === "completed") {
    throw new ReplayDivergence(
      `${what(history)} diverged after operation #${replay.calls}: the run completed, and the code now throws: ${coerceError(thrown).message}`,
      replay.calls + 1,
      undefined,
      undefined,
    );
  }
  // An answer given at creation is not work the run did: code that never asks for it still matches;
  // nor is a patch marker, which code may stop asking about once the patch is retired.
  // Nor is the failure hook's history, which the body never reaches (see above).
  const missed = bodyOperations(history).find(
    (operation) => !operation.preflight && operation.kind !== "patched" && !replay.reached.has(operation.key),
  );
  if (missed) {
    const at = missed.seq === null ? replay.calls + 1 : missed.seq + 1;
    throw new ReplayDivergence(
      `${what(history)} diverged at operation #${at}: the history has ${describe(missed.key)} there, and the code ${
        replay.continued ? "continued as new" : thrown === undefined ? "returned" : `threw (${coerceError(thrown).message})`
      } without calling it`,
      at,
      side(missed.key),
      undefined,
    );
  }
  if (replay.continued) return { replayed: replay.calls, reachedEnd: true, continuedAsNew: true };
  return thrown === undefined
    ? { replayed: replay.calls, reachedEnd: false, result }
    : { replayed: replay.calls, reachedEnd: true };
}

/** The engine's replay view with two additions: it knows where the history ends, and records the first divergence. */
class CheckedReplay extends ReplayHistory {
  calls = 0;
  readonly reached = new Set<string>();
  divergence: ReplayDivergence | undefined;
  ended = false;
  continued = false;
  onStop: ((reason: Error) => void) | undefined;

  constructor(
    readonly recorded: RunState,
    private readonly history: RunHistory,
  ) {
    super(recorded);
  }

  override enter(opKey: string, keys: string[] = [opKey]): { seq: number | null; done(): void } {
    const index = this.calls++;
    let op: { seq: number | null; done(): void };
    try {
      op = super.enter(opKey, keys);
    } catch (error) {
      // The engine's own check: the code reaches an operation at another position than it ran.
      throw this.stop(this.diverged(index, opKey, coerceError(error).message.replace(/^workflow code changed[^:]*: /, "")));
    }
    for (const key of keys) this.reached.add(key);
    if (keys.every((key) => this.isRecorded(key))) return op;
    op.done();
    if (this.history.status === "completed")
      throw this.stop(this.diverged(index, opKey, "the history does not have it, and the run completed without it"));
    this.ended = true;
    this.calls = index; // the history did not answer this one
    throw this.stop(new HistoryEnd(`the history of ${this.history.taskId} ends before ${describe(opKey)}`));
  }

  /**
   * A completed run passed every point of its code: without a marker it took the old path. An
   * unfinished one reaching a patch point for the first time has reached where its history ends.
   */
  override patchPoint(key: string): "recorded" | "passed" | "first" {
    const point = super.patchPoint(key);
    if (point !== "first") return point;
    if (this.history.status === "completed") return "passed";
    this.ended = true;
    throw this.stop(new HistoryEnd(`the history of ${this.history.taskId} ends before ${describe(key)}`));
  }

  /**
   * ctx.continueAsNew: checked as the engine checks it before its write (outside a step, JSON within
   * a step's limit, the workflow's input schema), then the replay stops, having written nothing.
   */
  async continueAsNew(attempt: Attempt, next: unknown, parse: (input: unknown) => unknown): Promise<never> {
    attempt.ensureOutsideStep("ctx.continueAsNew");
    attempt.ensureLive();
    parse(encodeJson(next, "ctx.continueAsNew input", attempt.deps.limits.stepOutputBytes).value);
    this.continued = true;
    throw this.stop(new HistoryEnd(`the code continues as new after the history of ${this.history.taskId}`));
  }

  private isRecorded(key: string): boolean {
    return key.startsWith("input:") ? this.recorded.answers.has(key.slice(6)) : this.recorded.steps.has(key);
  }

  private diverged(index: number, opKey: string, detail: string): ReplayDivergence {
    const there = bodyOperations(this.history).find((operation) => operation.seq === index);
    const sides = there
      ? `the history has ${describe(there.key)}, and the code calls ${describe(opKey)} (${detail})`
      : `the code calls ${describe(opKey)}: ${detail}`;
    this.divergence ??= new ReplayDivergence(
      `${what(this.history)} diverged at operation #${index + 1}: ${sides}`,
      index + 1,
      there ? side(there.key) : undefined,
      side(opKey),
    );
    return this.divergence;
  }

  /** Ends the replay's attempt: every later ctx call rejects at once, whatever the code does with this error. */
  private stop<E extends Error>(error: E): E {
    this.onStop?.(error);
    return error;
  }
}

/** The operations of the run's body: its failure record and hook's keys have positions of their own. */
function bodyOperations(history: RunHistory): HistoryOperation[] {
  return history.operations.filter((operation) => !isHookHistoryKey(operation.key));
}

function stateOf(history: RunHistory): RunState {
  const state = emptyRunState();
  for (const operation of bodyOperations(history)) {
    if (operation.kind === "input") {
      const key = operation.key.replace(/^input:/, "");
      state.answers.set(key, operation.value as never);
      if (operation.preflight) state.preflight.add(key);
    } else state.steps.set(operation.key, { value: operation.value, seq: operation.seq });
  }
  return state;
}

/** Marks a rejection as handled (a caller that awaits it still gets it), as ctx does (context.ts). */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

function side(key: string): ReplayedOperation {
  return { key, kind: operationKind(key) };
}

function what(history: RunHistory): string {
  return `replay of task ${history.taskId} (${history.workflow.name}@${history.workflow.version})`;
}

/** A handle every use of which fails: a replay that reaches the store has gone past its history. */
function noDatabase(): SqlHandle {
  const fail = () => {
    throw offline();
  };
  return new Proxy(fail, { get: fail, apply: fail }) as unknown as SqlHandle;
}
