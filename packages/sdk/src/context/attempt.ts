import { AsyncLocalStorage } from "node:async_hooks";
import type { SqlHandle } from "@runifold/store";
import type { DbClock } from "../db-clock";
import { AttemptEnded, coerceError, LeaseLost, StoreUnavailable, WorkflowMisuse } from "../errors";
import type { LeasedWrites } from "../leased-writes";
import type { Limits } from "../limits";
import type { Logger } from "../logger";
import type { RunState } from "../ops/load-run-state";
import type { Lease } from "../ops/types";
import type { RetryPolicy } from "../policy/retry-policy";
import type { ReplayHistory } from "../replay/history";
import type { WorkerObserver } from "../telemetry/observer";
import { isTransientStoreError } from "../transient-errors";
import { settleChildStarts } from "./child-starts";

/** The step body running in this async context (context/step.ts runs each body inside it). */
export const stepBodies = new AsyncLocalStorage<{ attempt: Attempt; key: string }>();

/** Where a step failure happened, so the executor can store it as the run's cause. */
export type StepFailure = { error: unknown; step: string; stepAttempt: number };

export type AttemptDeps = {
  sql: SqlHandle;
  /** Checkpoints go through the worker's shared, coalesced writes (leased-writes.ts). */
  writes: LeasedWrites;
  lease: Lease;
  tenantId: string;
  /** `name@version`: the metrics label of this attempt's steps. */
  workflowKey: string;
  /** Told about each step execution (metrics); optional. */
  observer?: WorkerObserver;
  state: RunState;
  history: ReplayHistory;
  clock: DbClock;
  limits: Limits;
  logger: Logger;
  /** The workflow's default step retry policy. */
  retry?: RetryPolicy;
  /**
   * Put before every ctx.step and ctx.sleep key once it passed checkKey: `onfailure:` for an
   * onFailure hook (compensation/on-failure.ts), whose history shares the run's under keys no body
   * can use (context/keys.ts).
   */
  keyPrefix?: string;
  /** The attempt's signal: cancelled, lease lost, attempt ended, run timed out. */
  signal: AbortSignal;
  /**
   * Aborts the signal now if the lease has expired by the worker's own count (lease-keeper.ts
   * check()): called before work starts, since the expiry timer may be overdue behind a busy loop.
   */
  checkLease?(): void;
  /** Ends the attempt now (the run parked): aborts the signal so running step bodies learn it. */
  end(reason: Error): void;
};

/**
 * The state one attempt's ctx shares between its operations: whether the attempt is over (after
 * which every ctx call rejects at once and runs nothing), which step is running, and the last
 * step failure (its key and execution number go into the stored failure cause).
 */
export class Attempt {
  ended = false;
  /** True once an operation parked the run: whatever the workflow does next, the attempt is over. */
  suspended = false;
  currentStep: string | undefined;
  lastStepFailure: StepFailure | undefined;
  /** A misuse that fails the run whatever the workflow does with its error (two waits at once). */
  misuse: WorkflowMisuse | undefined;
  private readonly usedKeys = new Set<string>();
  /** Calls so far of each numbered family (occurrence), and whether one was made in parallel. */
  private readonly occurrences = new Map<string, { count: number; parallel: boolean }>();
  /** The wait of this attempt on its way to the store, e.g. `ctx.sleep("nap")`. */
  private waitInFlight: string | undefined;

  /** The receipts of the approvals this attempt passed, for the result's `_meta["io.runifold/approvals"]`. */
  readonly receipts: string[] = [];

  constructor(readonly deps: AttemptDeps) {}

  /** Keeps a settled approval's receipt for the final result (executor.ts), and hands the result on. */
  keepReceipt<T extends { receipt: string }>(result: T): T {
    if (!this.receipts.includes(result.receipt)) this.receipts.push(result.receipt);
    return result;
  }

  /** Throws when the attempt is over: a dangling or post-park ctx call must not run anything. */
  ensureLive() {
    if (this.ended || this.suspended) throw new AttemptEnded("this attempt has ended; the ctx call was ignored");
    this.deps.checkLease?.();
    if (this.deps.signal.aborted) throw abortReason(this.deps.signal);
  }

  /**
   * A durable operation called from inside a step body is refused, and fails the run whatever the
   * body does with the error: a body is one unit of work that may run again (a retry replays
   * nothing inside it), so a step or wait nested in it cannot be memoized. Progress and log lines
   * are not durable operations and stay allowed.
   */
  ensureOutsideStep(what: string) {
    const body = stepBodies.getStore();
    if (body?.attempt !== this) return;
    this.misuse ??= new WorkflowMisuse(
      "invalid_argument",
      `${what} was called inside the body of step "${body.key}": steps and waits cannot nest; call them from the workflow, between steps`,
    );
    throw this.misuse;
  }

  /**
   * Counts the calls of `family` in this attempt and answers this one's number (1 = the first).
   * The number names the call in the history, so it must come out the same on every replay: it
   * does when the calls happen in the code's own order. A call made while another durable
   * operation is pending (a `Promise.all` branch) is reached in an order that is timing (a replay,
   * whose memoized operations settle at once, reaches it in another), so such a call is refused —
   * always when `parallelFirst` is false, and from the second call on otherwise — as is any later
   * call of a family one of whose calls was made in parallel.
   */
  occurrence(family: string, what: string, options: { parallelFirst: boolean }): number {
    const seen = this.occurrences.get(family) ?? { count: 0, parallel: false };
    const number = seen.count + 1;
    const parallel = !this.deps.history.idle;
    if ((parallel || seen.parallel) && (number > 1 || !options.parallelFirst)) {
      throw new WorkflowMisuse(
        "invalid_argument",
        `${what} was called ${number > 1 ? `for the ${ordinal(number)} time ` : ""}while other durable operations were pending: ` +
          "calls in parallel branches are reached in an order that is timing, so they cannot be numbered the same way on replay. " +
          (options.parallelFirst
            ? "Give each parallel call its own key (for example with the item's ID)"
            : "Call it before the parallel section and pass the value in"),
      );
    }
    this.occurrences.set(family, { count: number, parallel: seen.parallel || parallel });
    return number;
  }

  /**
   * The key of one call of a step or a sleep: the user's key the first time, then `repeat:<key>#<n>`
   * for the n-th call (n ≥ 2) — a loop of `ctx.step("charge")` records `charge`, `repeat:charge#2`,
   * `repeat:charge#3`; of `ctx.sleep("nap")`, `sleep:nap`, `sleep:repeat:nap#2`; of `ctx.child(w)`,
   * `child:<w's name>`, `child:repeat:<name>#2`. `repeat:` is a reserved prefix (context/keys.ts), so
   * no key a user chooses collides with a numbered one. Steps, sleeps and children are counted apart (`kind`).
   */
  repeatedKey(kind: "step" | "sleep" | "child", key: string, what: string): string {
    const number = this.occurrence(`${kind}:${key}`, what, { parallelFirst: true });
    return number === 1 ? key : `repeat:${key}#${number}`;
  }

  /**
   * Input and approval keys stay unique per run: they are not only history keys but the names a
   * client, an operator or an approver answers by (`inputRequests[key]`, /approvals/<task>/<key>),
   * and a second question under a name already answered would be answered by the first answer.
   */
  claimKey(key: string) {
    if (this.usedKeys.has(key)) {
      throw new WorkflowMisuse(
        "invalid_argument",
        `key "${key}" used twice in one run: input and approval keys must be unique (they name the question for whoever answers it)`,
      );
    }
    this.usedKeys.add(key);
  }

  /**
   * A run waits for one thing at a time. A wait that parks the run parks it for that wait alone, so
   * a second wait called alongside (Promise.race of a signal and a timer, Promise.all of two waits)
   * would be silently ignored until the first is satisfied, and which one parks is timing. It is
   * refused at its call instead, and the run fails (`misuse`) — never parked on one of them. One
   * macrotask before the first wait reaches the store lets a sibling called in the same expression
   * be seen first, so neither parks. A wait satisfied from the history (a replay) never gets here.
   */
  async exclusiveWait<T>(what: string, op: () => Promise<T>): Promise<T> {
    if (this.waitInFlight !== undefined) {
      this.misuse ??= new WorkflowMisuse(
        "invalid_argument",
        `${what} was called while ${this.waitInFlight} is pending: a run waits for one thing at a time, so ` +
          "Promise.race or Promise.all of waits is refused. For a signal or a timeout use ctx.waitForSignal(name, { timeoutMs }); " +
          "for several answers ctx.requestInputs; for several signals one name whose payload says which",
      );
      throw this.misuse;
    }
    this.waitInFlight = what;
    try {
      await new Promise<void>((resolve) => setImmediate(resolve));
      // A child started and not awaited reaches the store before the run parks (context/child.ts).
      await settleChildStarts(this);
      if (this.misuse) throw this.misuse;
      return await op();
    } finally {
      this.waitInFlight = undefined;
    }
  }

  /** The run parked: record it, end the attempt, and hand back the control-flow error to throw. */
  park<E extends Error>(error: E): E {
    this.suspended = true;
    this.deps.end(error);
    return error;
  }

  /**
   * Connection-level store errors end the attempt without touching the run (the worker releases it
   * once the store answers again); any other error is not transient and fails the step or the run.
   */
  async store<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (error) {
      if (isTransientStoreError(error)) throw new StoreUnavailable(coerceError(error).message);
      throw error;
    }
  }
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

export function abortReason(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : new LeaseLost("run cancelled or lease lost");
}
