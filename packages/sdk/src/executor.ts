import type { SqlHandle } from "@runifold/store";
import { compensateCancelled } from "./compensation/cancelled";
import { failThroughHook, type HookEnv, recordedFailure, runHook } from "./compensation/on-failure";
import { type Attempt, createReplayContext } from "./context";
import { settleChildStarts } from "./context/child-starts";
import { startHistoryBudget } from "./context/history-budget";
import { dbClockFrom } from "./db-clock";
import {
  AttemptEnded,
  coerceError,
  LeaseExpiredLocally,
  LeaseLost,
  RunSuspended,
  RunTimedOut,
  StoreUnavailable,
  UnhandledWorkflowError,
} from "./errors";
import type { ExecutionEnd } from "./execution-end";
import { causeOf, type FailureCause } from "./failure-cause";
import { encodeJson } from "./json-value";
import { runInAttemptScope } from "./last-resort";
import { keepLease } from "./lease-keeper";
import type { LeasedWrites } from "./leased-writes";
import type { Limits } from "./limits";
import type { Logger } from "./logger";
import type { ClaimedRun } from "./ops/claim-runs";
import { markOnFailure } from "./ops/compensation-runs";
import type { PublicError } from "./ops/finish-run";
import { emptyRunState, loadRunState, type RunState } from "./ops/load-run-state";
import { historyUsageOf } from "./ops/read-history-usage";
import { setRunDeadline } from "./ops/set-run-deadline";
import type { Lease } from "./ops/types";
import { releaseWhenStoreAnswers } from "./release-when-store-answers";
import { ReplayHistory } from "./replay/history";
import { failTimedOut, failWith, finish, publicError } from "./run-end";
import type { WorkerObserver } from "./telemetry/observer";
import { isTransientStoreError } from "./transient-errors";
import type { AnyWorkflow, WorkflowResult } from "./workflow";
import { parseWorkflowInput } from "./workflow-input";

export type ExecuteDeps = {
  sql: SqlHandle;
  /** Claims' and renewals' pool: its commits need not wait for the disk (worker.ts, `leaseSql`). */
  leaseSql: SqlHandle;
  /** The worker's coalesced checkpoint and terminal writes (leased-writes.ts). */
  writes: LeasedWrites;
  logger: Logger;
  workerId: string;
  leaseMs: number;
  limits: Limits;
  observer?: WorkerObserver;
};

/** Attempts in a row that may end without progress (crash, lost lease) before the run is failed. */
export const DEFAULT_MAX_LOST_ATTEMPTS = 10;

const MAX_TIMER_MS = 2 ** 31 - 1;

export type { ExecutionEnd } from "./execution-end";

/**
 * Runs one claimed attempt of a run to its next durable boundary: terminal, parked, or abandoned
 * (lease lost, cancelled, store unavailable — the store is left as it was and the lease decides).
 * The lease keeper renews the lease during long steps and aborts `ctx.signal` when it is lost;
 * the run's own deadline aborts it too. When the attempt ends, its signal is aborted with
 * `AttemptEnded` so that no step body left running believes it still holds the run.
 */
export async function executeRun(
  deps: ExecuteDeps,
  run: ClaimedRun,
  definition: AnyWorkflow,
  abort: AbortController,
  /** When the claim was sent (performance.now()): the lease's local deadline counts from it. */
  claimSentAt?: number,
): Promise<ExecutionEnd> {
  const lease: Lease = { runId: run.id, workerId: deps.workerId, attempt: run.attempt, leaseMs: deps.leaseMs };
  const clock = dbClockFrom(run.db_now);
  const failRun = (error: PublicError, cause: FailureCause) => finish(deps, lease, { status: "failed", error, cause });
  // Once the body runs, a workflow with onFailure fails through its hook instead.
  let fail = failRun;
  const keeper = keepLease({
    sql: deps.leaseSql,
    lease,
    logger: deps.logger,
    onLost: (reason) => abort.abort(reason),
    grantedAt: claimSentAt,
  });
  let deadlineTimer: NodeJS.Timeout | undefined;
  let attempt: Attempt | undefined;

  try {
    const maxLost = definition.maxLostAttempts ?? DEFAULT_MAX_LOST_ATTEMPTS;
    if (run.lost_attempts >= maxLost) {
      const message = `Workflow ${run.workflow_key} lost ${run.lost_attempts} attempts in a row without progress`;
      return await fail(publicError(message, { code: "attempts_exhausted", attempt: run.attempt }), {
        code: "attempts_exhausted",
        message: `${message} (crashed or partitioned workers; the limit is ${maxLost})`,
        attempt: run.attempt,
      });
    }
    let deadline = run.deadline_at ? new Date(run.deadline_at).getTime() : undefined;
    if (deadline === undefined && definition.timeoutMs) {
      deadline = (await storeCall(() => setRunDeadline(deps.sql, lease, definition.timeoutMs as number)))?.getTime();
    }
    if (deadline !== undefined) {
      const remaining = deadline - clock.now();
      if (remaining <= 0) return await failTimedOut(run, fail);
      // setTimeout fires at once past 2^31 - 1 ms; a deadline that far away is the sweep's to enforce.
      if (remaining < MAX_TIMER_MS) deadlineTimer = setTimeout(() => abort.abort(new RunTimedOut("run timed out")), remaining);
    }
    // A connection-level error while loading the replay state ends the attempt like any other store
    // outage; only the workflow's own errors may fail the run. Every durable write bumps
    // `checkpoints`, so a run with none has no history to load.
    const state: RunState = run.checkpoints > 0 ? await storeCall(() => loadRunState(deps.sql, run.id)) : emptyRunState();
    // Measured on every attempt, by the claim itself: a first one has timeline events already (created, claimed, signals sent).
    const usage = historyUsageOf(run);
    // The stored input is what the caller sent: parsed here once, as at creation (workflow-input.ts).
    let input: unknown;
    try {
      input = parseWorkflowInput(definition, run.workflow_key, run.input);
    } catch (error) {
      // The issues (paths and messages) go to the operators' cause; the client learns the input was refused.
      return await fail(
        { code: -32602, message: `Invalid input for ${run.workflow_key}` },
        causeOf(error, { attempt: run.attempt }),
      );
    }
    const attemptDeps = {
      sql: deps.sql,
      writes: deps.writes,
      lease,
      tenantId: run.tenant_id,
      workflowKey: run.workflow_key,
      observer: deps.observer,
      clock,
      limits: deps.limits,
      logger: deps.logger,
      retry: definition.retry,
      signal: abort.signal,
      checkLease: keeper.check,
      end: (reason: Error) => {
        if (!abort.signal.aborted) abort.abort(reason);
      },
    };
    // A compensation run runs only the hook (compensation/cancelled.ts); so does a run of a workflow with
    // onFailure whose failure is recorded: never its body again (compensation/on-failure.ts).
    const hookEnv: HookEnv | undefined =
      definition.onFailure || run.origin === "compensation"
        ? {
            attemptDeps,
            run,
            definition,
            input,
            abort,
            finish: (o) => finish(deps, lease, o),
            handBack: () => void releaseWhenStoreAnswers(deps, lease),
          }
        : undefined;
    if (hookEnv && run.origin === "compensation") return await compensateCancelled(hookEnv, state);
    const failure = hookEnv && recordedFailure(state);
    if (hookEnv && failure) return await runHook(hookEnv, state, failure);
    // Marked before the body starts: cancelling the run from here on queues its compensation (migration 0041).
    if (hookEnv && run.checkpoints === 0 && !(await storeCall(() => markOnFailure(deps.sql, lease)))) return "abandoned";
    const created = createReplayContext({ ...attemptDeps, state, history: new ReplayHistory(state) }, (value) =>
      parseWorkflowInput(definition, run.workflow_key, value),
    );
    attempt = created.attempt;
    const body = attempt;
    if (hookEnv) fail = (error, cause) => failThroughHook(hookEnv, state, { status: "failed", error, cause }, body);
    const overLimit = startHistoryBudget(attempt, usage);
    if (overLimit) return await failWith(deps, run, fail, overLimit, attempt);
    const scope = {
      runId: run.id,
      fail: (error: UnhandledWorkflowError | StoreUnavailable) => {
        if (!abort.signal.aborted) abort.abort(error);
      },
    };
    // No body, hooked or not, can use the hook's keys: `onfailure` is a reserved prefix (context/keys.ts).
    const result = await runInAttemptScope(scope, () => definition.run(created.ctx, input));
    // A child started and not awaited is recorded (or refused) before the run ends (context/child.ts).
    await settleChildStarts(attempt);
    if (attempt.misuse) return await failWith(deps, run, fail, attempt.misuse, attempt);
    if (attempt.suspended) return "suspended";
    if (abort.signal.aborted) throw abort.signal.reason;
    attempt.ended = true;
    let encoded: WorkflowResult;
    try {
      encoded = encodeJson(normalizeResult(result, attempt.receipts), "the workflow's result", deps.limits.resultBytes)
        .value as WorkflowResult;
    } catch (error) {
      return await failWith(deps, run, fail, error, undefined);
    }
    return await finish(deps, lease, { status: "completed", result: encoded });
  } catch (caught) {
    // Two waits at once fail the run, whatever the workflow made of the error — unless the attempt
    // had already ended otherwise (a sibling's park got through first, a cancel, a lost lease).
    if (attempt?.misuse && !abort.signal.aborted) return await failWith(deps, run, fail, attempt.misuse, attempt);
    if (attempt?.suspended || caught instanceof RunSuspended) return "suspended";
    // The abort reason says why the attempt stopped, whatever the workflow threw on the way out.
    const reason = abort.signal.aborted ? abort.signal.reason : caught;
    if (reason instanceof RunTimedOut) return await failTimedOut(run, failRun);
    if (reason instanceof UnhandledWorkflowError) return await failWith(deps, run, fail, reason, undefined);
    // Given up locally (the store did not answer the renewals): not the run's fault either.
    if (reason instanceof LeaseExpiredLocally) void releaseWhenStoreAnswers(deps, lease);
    // A store call failed, or the driver threw from its own timer (last-resort.ts): not the run's fault.
    if (reason instanceof StoreUnavailable) {
      deps.logger.warn("store unavailable; the attempt ends and the run is handed back once the store answers", {
        runId: run.id,
        error: reason.message,
      });
      void releaseWhenStoreAnswers(deps, lease);
      return "abandoned";
    }
    if (reason instanceof LeaseLost || reason instanceof AttemptEnded || abort.signal.aborted) return "abandoned";
    return await failWith(deps, run, fail, caught, attempt);
  } finally {
    clearTimeout(deadlineTimer);
    keeper.stop();
    if (attempt) attempt.ended = true;
    if (!abort.signal.aborted) abort.abort(new AttemptEnded("attempt ended"));
  }
}

async function storeCall<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    throw isTransientStoreError(error) ? new StoreUnavailable(coerceError(error).message) : error;
  }
}

/** Keeps the stored result a valid CallToolResult even if a workflow returns something loose. */
function normalizeResult(result: WorkflowResult, receipts: readonly string[]): WorkflowResult {
  const content = Array.isArray(result?.content) ? result.content : [];
  return {
    content,
    ...(result?.structuredContent ? { structuredContent: result.structuredContent } : {}),
    ...(result?.isError ? { isError: true } : {}),
    // The receipts of the approvals this run passed (docs/approvals.md): anyone holding the result can verify them.
    ...(receipts.length > 0 ? { _meta: { "io.runifold/approvals": [...receipts] } } : {}),
  };
}
