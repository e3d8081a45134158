import { createReplayContext } from "../context";
import type { Attempt, AttemptDeps } from "../context/attempt";
import { AttemptEnded, LeaseExpiredLocally, LeaseLost, RunSuspended, StoreUnavailable } from "../errors";
import type { ExecutionEnd } from "../execution-end";
import { causeOf, type FailureCause } from "../failure-cause";
import { encodeJson } from "../json-value";
import { runInAttemptScope } from "../last-resort";
import { appendLog } from "../ops/append-log";
import type { ClaimedRun } from "../ops/claim-runs";
import type { PublicError, RunOutcome } from "../ops/finish-run";
import type { RecordedStep, RunState } from "../ops/load-run-state";
import { readCompletedSteps } from "../ops/read-completed-steps";
import { releaseRun } from "../ops/release-run";
import { ReplayHistory } from "../replay/history";
import { isTransientStoreError } from "../transient-errors";
import type { AnyWorkflow, FailureContext, WorkflowContext } from "../workflow";
import type { CompletedStep, RunFailure } from "./types";

/**
 * The history key of a run's recorded failure. Written before the hook runs, it is what makes the
 * hook durable: an attempt that finds it runs the hook again instead of the body (the failed step
 * would otherwise execute again on replay, and might succeed this time, after compensations ran).
 */
export const FAILURE_RECORD_KEY = "onfailure";
/** The hook's own history keys: its steps and sleeps, their numbered repeats and retry state. */
const HOOK_KEY = /^(?:(?:retry|sleep|repeat):)*onfailure:/;

/** A history key of the run's failure record or of its hook, never one of the body's (context/keys.ts). */
export function isHookHistoryKey(key: string): boolean {
  return key === FAILURE_RECORD_KEY || HOOK_KEY.test(key);
}

/** The failure a run ends with once its hook has run: what the body's failure would have written. */
export type FailureRecord = { status: "failed"; error: PublicError; cause: FailureCause };

/** What the hook needs from the executor's attempt. */
export type HookEnv = {
  /** The attempt's deps without a history: the hook replays its own keys only. */
  attemptDeps: Omit<AttemptDeps, "state" | "history">;
  run: ClaimedRun;
  definition: AnyWorkflow;
  input: unknown;
  abort: AbortController;
  /** The executor's terminal write (failures of the store handled there). */
  finish(outcome: RunOutcome): Promise<ExecutionEnd>;
  /** Hands the run back once the store answers (the executor's release after an outage). */
  handBack(): void;
};

/** The recorded failure of a run whose hook has not finished yet, if there is one. */
export function recordedFailure(state: RunState): FailureRecord | undefined {
  return state.steps.get(FAILURE_RECORD_KEY)?.value as FailureRecord | undefined;
}

/**
 * The body failed: record the failure (one checkpoint), then run the hook in this attempt. The body's
 * attempt ends first, so a body promise left running can no longer write anything.
 */
export async function failThroughHook(
  env: HookEnv,
  state: RunState,
  record: FailureRecord,
  body: Attempt,
): Promise<ExecutionEnd> {
  body.ended = true;
  const { writes, lease, logger } = env.attemptDeps;
  try {
    const encoded = encodeJson(record, "the run's failure", 256 * 1024);
    const held = await writes.checkpoint(lease, { key: FAILURE_RECORD_KEY, outputJson: encoded.text, seq: null });
    if (!held) return "abandoned";
    state.steps.set(FAILURE_RECORD_KEY, { value: encoded.value, seq: null });
  } catch (error) {
    if (isTransientStoreError(error)) {
      // Unrecorded, the failure is not lost: the next attempt replays the body to it again.
      logger.warn("could not record the failure before onFailure; the run is handed back", { runId: lease.runId });
      env.handBack();
      return "abandoned";
    }
    // Refused for good (it would be on every attempt): the run fails without its hook, and says so.
    const message = `the failure could not be recorded, so onFailure did not run: ${String(error)}`;
    logger.error("onFailure skipped", { runId: lease.runId, error: message });
    const compensation: FailureCause = { code: "unstorable_outcome", message, attempt: lease.attempt };
    return env.finish({ ...record, cause: { ...record.cause, compensation } as FailureCause });
  }
  if (env.abort.signal.aborted) {
    // This attempt's signal fired (an unhandled error in workflow code): the next attempt runs the hook.
    await releaseRun(env.attemptDeps.sql, lease, "compensation").catch(() => env.handBack());
    return "abandoned";
  }
  return runHook(env, state, record);
}

/** The body failed and its failure is recorded: the hook undoes the run's own steps, then the run fails. */
export function runHook(env: HookEnv, state: RunState, record: FailureRecord): Promise<ExecutionEnd> {
  return runHookPlan(env, {
    memo: hookSteps(state.steps),
    completedOf: env.run.id,
    failure: {
      input: env.input,
      status: record.status,
      error: {
        code: record.cause.code,
        message: record.cause.message,
        ...(record.cause.step ? { step: record.cause.step } : {}),
      },
    },
    firstLine: `onFailure: compensating (${record.cause.code})`,
    succeeded: record,
    hookFailed: (hookCause) => ({ ...record, cause: { ...record.cause, compensation: hookCause } as FailureCause }),
  });
}

/** One run of the hook: what it replays, whose steps it undoes, why, and how the run ends after it. */
export type HookPlan = {
  /** The hook's recorded steps (`onfailure:` keys), replayed rather than run again. */
  memo: Map<string, RecordedStep>;
  /** The run whose completed body steps the hook sees (ctx.completedSteps). */
  completedOf: string;
  failure: RunFailure<unknown>;
  /** The timeline line written when the hook starts for the first time. */
  firstLine: string;
  succeeded: RunOutcome;
  hookFailed(hookCause: FailureCause): RunOutcome;
};

/**
 * Runs `definition.onFailure` to its end, then writes the plan's outcome. Its steps replay from the
 * memo. Parking (a long sleep or retry backoff) or a lost lease leaves the run for the next attempt,
 * which runs the hook again from its records; the hook failing ends the run as `hookFailed` says,
 * and the failure is on the timeline.
 */
export async function runHookPlan(env: HookEnv, plan: HookPlan): Promise<ExecutionEnd> {
  const { attemptDeps: deps, abort, run } = env;
  const onFailure = env.definition.onFailure as NonNullable<AnyWorkflow["onFailure"]>;
  let attempt: Attempt | undefined;
  try {
    const completed = await storeCall(() => readCompletedSteps(deps.sql, plan.completedOf));
    const hookState: RunState = { steps: plan.memo, answers: new Map(), preflight: new Set() };
    const created = createReplayContext({
      ...deps,
      state: hookState,
      history: new ReplayHistory(hookState),
      keyPrefix: `${FAILURE_RECORD_KEY}:`,
    });
    attempt = created.attempt;
    const scope = {
      runId: run.id,
      fail: (error: Error) => {
        if (!abort.signal.aborted) abort.abort(error);
      },
    };
    // A line on the timeline when compensation starts (a resumed hook has rows of its own already).
    if (hookState.steps.size === 0) await logBestEffort(env, { message: plan.firstLine });
    await runInAttemptScope(scope, () => onFailure(failureContext(created.ctx, completed), plan.failure));
    if (attempt.misuse) throw attempt.misuse;
    if (attempt.suspended) return "suspended";
    if (abort.signal.aborted) throw abort.signal.reason;
    attempt.ended = true;
    return await env.finish(plan.succeeded);
  } catch (caught) {
    if (attempt?.suspended || caught instanceof RunSuspended) return "suspended";
    const reason = abort.signal.aborted ? abort.signal.reason : caught;
    if (reason instanceof LeaseExpiredLocally || caught instanceof StoreUnavailable) env.handBack();
    if (reason instanceof LeaseLost || reason instanceof AttemptEnded || reason instanceof LeaseExpiredLocally)
      return "abandoned";
    if (caught instanceof StoreUnavailable) return "abandoned";
    const last = attempt?.lastStepFailure;
    const step = last && last.error === reason ? last.step : attempt?.currentStep;
    const hookCause = causeOf(reason, { attempt: run.attempt, step });
    deps.logger.error("onFailure failed", { runId: run.id, error: hookCause.message });
    await logBestEffort(env, { message: "onFailure failed", data: { code: hookCause.code, message: hookCause.message, step } });
    return await env.finish(plan.hookFailed(hookCause));
  } finally {
    if (attempt) attempt.ended = true;
  }
}

/**
 * The hook's ctx: its step and sleep keys are checked like the body's, then move under `onfailure:`
 * (the attempt's keyPrefix); the body's completed steps come along.
 */
function failureContext(ctx: WorkflowContext, completedSteps: CompletedStep[]): FailureContext {
  return {
    runId: ctx.runId,
    tenantId: ctx.tenantId,
    attempt: ctx.attempt,
    signal: ctx.signal,
    step: (key, fn, options) => ctx.step(key, fn, options),
    sleep: (key, ms) => ctx.sleep(key, ms),
    log: (message, data) => ctx.log(message, data),
    progress: (progress) => ctx.progress(progress),
    completedSteps: Object.freeze(completedSteps.map((step) => Object.freeze(step))),
  };
}

/** The hook's rows among a run's recorded steps. */
export function hookSteps(steps: Map<string, RecordedStep>): Map<string, RecordedStep> {
  return new Map([...steps].filter(([key]) => HOOK_KEY.test(key)));
}

async function logBestEffort(env: HookEnv, entry: { message: string; data?: Record<string, unknown> }): Promise<void> {
  try {
    await appendLog(env.attemptDeps.sql, env.attemptDeps.lease, encodeJson(entry, "log entry", 16 * 1024).text);
  } catch {
    // A timeline line is best effort; the cause carries what matters.
  }
}

/** A store call whose connection-level failure ends the attempt (StoreUnavailable), not the run. */
export async function storeCall<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    throw isTransientStoreError(error) ? new StoreUnavailable(String(error)) : error;
  }
}
