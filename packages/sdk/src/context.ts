import { requestApproval } from "./context/approval";
import { Attempt, type AttemptDeps } from "./context/attempt";
import { startChildWorkflow } from "./context/child";
import { continueAsNew } from "./context/continue-as-new";
import { recordValue } from "./context/deterministic";
import { deprecatePatch, patched } from "./context/patched";
import { runStep } from "./context/step";
import { requestInputs, signalWaiter, sleep } from "./context/waits";
import { WorkflowMisuse } from "./errors";
import { encodeJson } from "./json-value";
import { appendLog } from "./ops/append-log";
import { reportProgress } from "./ops/report-progress";
import type { Progress, WorkflowContext } from "./workflow";

export type { AttemptDeps } from "./context/attempt";
export { Attempt } from "./context/attempt";

/**
 * The `ctx` a workflow receives for one attempt. On replay, memoized operations return their
 * recorded values without running; every durable wait either returns what was recorded or parks
 * the run and throws `RunSuspended`, which ends this attempt.
 *
 * Dangling work is contained (docs/authoring.md, "Control flow"): once the attempt is over — the
 * run parked, finished, was lost or cancelled — every ctx call rejects with `AttemptEnded` at once
 * and runs nothing, and no promise ctx hands out can become an unhandled rejection by itself.
 * `progress` and `log` are best effort: they never reject for lease or store reasons.
 */
export function createReplayContext(
  deps: AttemptDeps,
  /** The workflow's input schema, for ctx.continueAsNew (executor.ts passes it; a replay harness need not). */
  parseInput?: (input: unknown) => unknown,
): { ctx: WorkflowContext; attempt: Attempt } {
  const attempt = new Attempt(deps);
  const waitForSignal = signalWaiter(attempt);

  const ctx: WorkflowContext = {
    runId: deps.lease.runId,
    tenantId: deps.tenantId,
    attempt: deps.lease.attempt,
    signal: deps.signal,
    step: (key, fn, options) => contained(runStep(attempt, key, fn, options)),
    sleep: (key, ms) => contained(sleep(attempt, key, ms)),
    waitForSignal: (name, options) => contained(waitForSignal(name, options)),
    requestInputs: (requests, timeout) => contained(requestInputs(attempt, requests, timeout)),
    requestInput: (key, request, timeout) =>
      contained(
        requestInputs(attempt, { [key]: request }, timeout).then(
          (responses) => responses[key] as NonNullable<(typeof responses)[string]>,
        ),
      ),
    requestApproval: (key, options) => contained(requestApproval(attempt, key, options)),
    child: (workflow, input, options) => startChildWorkflow(attempt, workflow, input, options),
    now: () => contained(recordValue(attempt, "now")),
    random: () => contained(recordValue(attempt, "random")),
    uuid: () => contained(recordValue(attempt, "uuid")),
    patched: (id) => patched(attempt, id),
    deprecatePatch: (id) => deprecatePatch(attempt, id),
    continueAsNew: (input) => contained(continueAsNew(attempt, input, parseInput)),
    progress: (progress) => contained(reportBestEffort(attempt, progress)),
    log: (message, data) => contained(logBestEffort(attempt, message, data)),
  };
  return { ctx, attempt };
}

/**
 * Marks the promise as handled (a caller that awaits it still gets its rejection): an un-awaited
 * ctx call whose attempt ended must never become an unhandled rejection that takes the worker down.
 */
function contained<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

async function reportBestEffort(attempt: Attempt, progress: Progress): Promise<void> {
  const { deps } = attempt;
  if (
    typeof progress !== "object" ||
    progress === null ||
    typeof progress.progress !== "number" ||
    !Number.isFinite(progress.progress)
  )
    throw new WorkflowMisuse("invalid_argument", "ctx.progress needs { progress: number, total?, message? }");
  if (typeof progress.message === "string" && progress.message.length > deps.limits.progressMessageChars)
    throw new WorkflowMisuse(
      "payload_too_large",
      `progress message is ${progress.message.length} characters, over the limit of ${deps.limits.progressMessageChars}`,
    );
  // A replay re-runs the code that reported this progress already: writing it again would make the
  // stored progress go backwards (and cost a write and a NOTIFY each).
  if (attempt.ended || attempt.suspended || deps.signal.aborted || deps.history.replaying) return;
  const encoded = encodeJson(progress, "progress", deps.limits.progressMessageChars * 4 + 512);
  await reportProgress(deps.sql, deps.lease, encoded.value as Progress).catch((error) => {
    deps.logger.debug("progress not recorded", { runId: deps.lease.runId, error: String(error) });
  });
}

async function logBestEffort(attempt: Attempt, message: string, data?: Record<string, unknown>): Promise<void> {
  const { deps } = attempt;
  if (typeof message !== "string") throw new WorkflowMisuse("invalid_argument", "ctx.log needs a message string");
  const entry = encodeJson(data === undefined ? { message } : { message, data }, "ctx.log entry", deps.limits.logEntryBytes);
  if (attempt.ended || attempt.suspended || deps.signal.aborted) return;
  // Lines written by the work being replayed were written when that work first ran.
  if (deps.history.replaying) return;
  await appendLog(deps.sql, deps.lease, entry.text).catch((error) => {
    deps.logger.debug("log line not recorded", { runId: deps.lease.runId, error: String(error) });
  });
}
