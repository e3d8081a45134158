import { LeaseLost, RunSuspended, StepTimeout, StoreUnavailable, WorkflowMisuse } from "../errors";
import { CAUSE_MESSAGE_CHARS } from "../failure-cause";
import { encodeJson, storableText } from "../json-value";
import type { StepCheckpoint } from "../ops/checkpoint-step";
import { readStepOutput } from "../ops/read-step-output";
import { recordStepFailure, type StepRetryState } from "../ops/record-step-failure";
import { backoffDelayMs, isRetryable, type ResolvedRetryPolicy, resolveRetryPolicy } from "../policy/retry-policy";
import { observeStep } from "../telemetry/attempt-telemetry";
import type { StepOptions, StepScope } from "../workflow";
import { type Attempt, abortReason, stepBodies } from "./attempt";
import { chargeHistory } from "./history-budget";
import { checkKey, checkMs } from "./keys";

/** A backoff at least this long parks the run (freeing the slot) instead of waiting in the worker. */
export const PARK_BACKOFF_MS = 1_000;

/**
 * ctx.step: replay the memoized output, or execute `fn` under the retry policy and checkpoint its
 * output exactly once. The output is encoded before the checkpoint (json-value.ts): a value JSON
 * cannot hold, or one over the limit, fails the step at once; the value returned is the JSON round
 * trip, the same a replay returns. Failed executions are counted in the store (`retry:<key>`).
 */
export async function runStep<T>(
  attempt: Attempt,
  rawKey: string,
  fn: (scope: StepScope) => Promise<T> | T,
  options?: StepOptions,
): Promise<T> {
  const userKey = (attempt.deps.keyPrefix ?? "") + checkKey(rawKey, "ctx.step key");
  if (typeof fn !== "function") throw new WorkflowMisuse("invalid_argument", `ctx.step("${userKey}") needs a function`);
  attempt.ensureOutsideStep(`ctx.step("${userKey}")`);
  attempt.ensureLive();
  // From here on `key` is the call's history key: `charge`, or `repeat:charge#2` in a loop.
  const key = attempt.repeatedKey("step", userKey, `ctx.step("${userKey}")`);
  const { deps } = attempt;
  const op = deps.history.enter(key);
  try {
    const recorded = deps.state.steps.get(key);
    if (recorded?.lazy) return (await replayLazy(attempt, key)) as T;
    if (recorded) return recorded.value as T;
    // Before a side effect: refused if the code no longer reaches recorded work (replay/history.ts).
    await deps.history.beforeNewWork(key);
    const policy = resolveRetryPolicy(deps.retry, options);
    const timeoutMs = options?.timeoutMs === undefined ? undefined : checkMs(options.timeoutMs, `ctx.step("${key}") timeoutMs`);
    const retryState = deps.state.steps.get(`retry:${key}`)?.value as StepRetryState | undefined;
    let failures = retryState?.failures ?? 0;
    if (failures >= policy.maxAttempts) throw exhausted(attempt, key, failures, retryState);
    if (retryState) await waitUntil(attempt, Date.parse(retryState.retryAt));
    attempt.currentStep = key;
    for (;;) {
      attempt.ensureLive();
      const execution = failures + 1;
      let output: T;
      try {
        const observed = { workflow: deps.workflowKey, key, execution, observer: deps.observer };
        output = await observeStep(observed, () => executeBody(attempt, key, fn, execution, timeoutMs));
      } catch (error) {
        if (attempt.ended || attempt.suspended || deps.signal.aborted) throw error;
        failures = execution;
        attempt.lastStepFailure = { error, step: key, stepAttempt: execution };
        if (!isRetryable(error, policy) || failures >= policy.maxAttempts) throw error;
        await backOff(attempt, key, failures, error, policy);
        continue;
      }
      attempt.ensureLive();
      let encoded: ReturnType<typeof encodeJson>;
      try {
        encoded = encodeJson(output, `step "${key}" output`, deps.limits.stepOutputBytes);
      } catch (error) {
        attempt.lastStepFailure = { error, step: key, stepAttempt: execution };
        throw error;
      }
      // The run's history limits (history-budget.ts): refused before the write, the run fails.
      chargeHistory(attempt, Buffer.byteLength(encoded.text));
      const held = await checkpoint(attempt, key, execution, { key, outputJson: encoded.text, seq: op.seq });
      if (!held) throw new LeaseLost("lease lost");
      deps.state.steps.set(key, { value: encoded.value, seq: op.seq });
      return encoded.value as T;
    }
  } finally {
    op.done();
    if (attempt.currentStep === key) attempt.currentStep = undefined;
  }
}

/**
 * A large recorded output, loaded now rather than with the run's state (ops/load-run-state.ts). Not
 * kept in the state afterwards: the workflow holds what it still uses, the rest can be collected.
 */
async function replayLazy(attempt: Attempt, key: string): Promise<unknown> {
  const { deps } = attempt;
  const row = await attempt.store(() => readStepOutput(deps.sql, deps.lease.runId, key));
  attempt.ensureLive();
  if (!row) throw new LeaseLost(`step "${key}" output is no longer in the history`);
  return row.value;
}

/**
 * The step's checkpoint. The store refusing it for a reason that is not the connection's (a value
 * the encoder let through and jsonb does not take) fails this step as `not_serialisable`, naming
 * it: the write would fail the same way on every attempt, so re-running the run cannot help.
 */
async function checkpoint(attempt: Attempt, key: string, execution: number, step: StepCheckpoint): Promise<boolean> {
  const { deps } = attempt;
  try {
    return await attempt.store(() => deps.writes.checkpoint(deps.lease, step));
  } catch (error) {
    if (error instanceof StoreUnavailable) throw error;
    const refused = new WorkflowMisuse(
      "not_serialisable",
      `step "${key}" output could not be stored: ${error instanceof Error ? error.message : String(error)}`,
    );
    attempt.lastStepFailure = { error: refused, step: key, stepAttempt: execution };
    throw refused;
  }
}

/**
 * One execution of the body, with its own AbortSignal: it fires on the step's timeout and whenever
 * the attempt's signal fires. The wait ends at the first of the three — a body that ignores its
 * signal keeps running in the background, but it no longer holds the run (or a worker slot).
 */
async function executeBody<T>(
  attempt: Attempt,
  key: string,
  fn: (scope: StepScope) => Promise<T> | T,
  execution: number,
  timeoutMs: number | undefined,
): Promise<T> {
  const outer = attempt.deps.signal;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => {
      controller.abort(outer.reason);
      reject(abortReason(outer));
    };
    outer.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        const error = new StepTimeout(`step "${key}" timed out after ${timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    }
  });
  // Inside stepBodies' scope, so a ctx call the body makes is recognised and refused (attempt.ts).
  const body = stepBodies.run({ attempt, key }, () =>
    Promise.resolve().then(() => fn({ signal: controller.signal, attempt: execution })),
  );
  // Whichever loses the race must not surface later as an unhandled rejection.
  body.catch(() => {});
  stopped.catch(() => {});
  try {
    return await Promise.race([body, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) outer.removeEventListener("abort", onAbort);
  }
}

/** Records the failure durably, then waits out the backoff in the worker or parks the run. */
async function backOff(attempt: Attempt, key: string, failures: number, error: unknown, policy: ResolvedRetryPolicy) {
  const { deps } = attempt;
  const delayMs = backoffDelayMs(policy, failures);
  const park = delayMs >= PARK_BACKOFF_MS;
  const e = error instanceof Error ? error : new Error(String(error));
  const outcome = await attempt.store(() =>
    recordStepFailure(deps.sql, deps.lease, {
      key,
      failures,
      error: { name: storableText(e.name, 200), message: storableText(e.message, CAUSE_MESSAGE_CHARS) },
      delayMs,
      park,
    }),
  );
  if (!outcome.held) throw new LeaseLost("lease lost");
  if (park) throw attempt.park(new RunSuspended(`step "${key}" retries at ${outcome.retryAt.toISOString()}`));
  await delay(delayMs, deps.signal);
}

/** The stored retry state says every execution failed already (the crash came before the run failed). */
function exhausted(attempt: Attempt, key: string, failures: number, state: StepRetryState | undefined): Error {
  const last = state?.lastError;
  const error = new Error(last?.message ?? `step "${key}" failed ${failures} times`);
  if (last?.name) error.name = last.name;
  attempt.lastStepFailure = { error, step: key, stepAttempt: failures };
  return error;
}

/** Waits until a database-clock instant (a backoff that was running when the last attempt ended). */
async function waitUntil(attempt: Attempt, at: number) {
  const remaining = at - attempt.deps.clock.now();
  if (remaining > 0) await delay(remaining, attempt.deps.signal);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
