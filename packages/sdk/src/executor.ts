import type { SqlHandle } from "../../../db/client";
import { createReplayContext, isTransientStoreError } from "./context";
import { coerceError, LeaseLost, RunSuspended, StoreUnavailable, WorkflowFailure } from "./errors";
import type { Logger } from "./logger";
import type { ClaimedRun } from "./ops/claim-runs";
import { finishRun, type RunOutcome } from "./ops/finish-run";
import { loadRunState, type RunState } from "./ops/load-run-state";
import { renewLease } from "./ops/renew-lease";
import type { Lease } from "./ops/types";
import type { AnyWorkflow, WorkflowResult } from "./workflow";

export type ExecuteDeps = { sql: SqlHandle; logger: Logger; workerId: string; leaseMs: number; maxAttempts?: number };

/** A run that keeps losing its attempts (crashing workers, poison input) is failed after this many. */
export const DEFAULT_MAX_ATTEMPTS = 25;

export type ExecutionEnd = "completed" | "failed" | "suspended" | "abandoned";

/**
 * Runs one claimed attempt of a run to its next durable boundary: terminal, parked, or abandoned
 * (lease lost, cancelled, store unavailable — the store is left as it was and the lease decides).
 * A heartbeat renews the lease during long steps; losing it aborts `ctx.signal`.
 */
export async function executeRun(
  deps: ExecuteDeps,
  run: ClaimedRun,
  definition: AnyWorkflow,
  abort: AbortController,
): Promise<ExecutionEnd> {
  const lease: Lease = { runId: run.id, workerId: deps.workerId, attempt: run.attempt, leaseMs: deps.leaseMs };
  const clockOffset = new Date(run.db_now).getTime() - Date.now();
  let currentStep: string | undefined;
  const heartbeat = setInterval(
    () => {
      renewLease(deps.sql, lease).then(
        (held) => {
          if (!held) abort.abort(new LeaseLost("lease lost or run cancelled"));
        },
        (error) => deps.logger.warn("lease renewal failed", { runId: run.id, error: coerceError(error).message }),
      );
    },
    Math.max(50, Math.floor(deps.leaseMs / 3)),
  );

  try {
    if (run.attempt > (deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)) {
      return await finish(deps, lease, {
        status: "failed",
        error: { code: -32603, message: `Workflow ${run.workflow_key} gave up after ${run.attempt - 1} attempts` },
      });
    }
    // A connection-level error while loading the replay state ends the attempt like any other store
    // outage (the lease decides); only the workflow's own errors may fail the run.
    const state: RunState =
      run.checkpoints > 0
        ? await loadRunState(deps.sql, run.id).catch((error) => {
            throw isTransientStoreError(error) ? new StoreUnavailable(coerceError(error).message) : error;
          })
        : { steps: new Map(), answers: new Map() };
    const parsed = definition.input.safeParse(run.input);
    if (!parsed.success) {
      return await finish(deps, lease, {
        status: "failed",
        error: { code: -32602, message: `Invalid input for ${run.workflow_key}` },
      });
    }
    const ctx = createReplayContext({
      sql: deps.sql,
      lease,
      tenantId: run.tenant_id,
      state,
      signal: abort.signal,
      now: () => Date.now() + clockOffset,
      onStep: (key) => {
        currentStep = key;
      },
    });
    const result = await definition.run(ctx, parsed.data);
    if (abort.signal.aborted) return "abandoned";
    return await finish(deps, lease, { status: "completed", result: normalizeResult(result) });
  } catch (caught) {
    if (caught instanceof RunSuspended) return "suspended";
    if (caught instanceof LeaseLost || abort.signal.aborted) return "abandoned";
    if (caught instanceof StoreUnavailable) {
      deps.logger.warn("store unavailable; attempt abandoned until its lease expires", { runId: run.id, error: caught.message });
      return "abandoned";
    }
    if (caught instanceof WorkflowFailure) {
      return await finish(deps, lease, {
        status: "failed",
        error: { code: caught.code, message: caught.message, ...(caught.data === undefined ? {} : { data: caught.data }) },
      });
    }
    // Anything else may carry internals (SQL, paths, secrets): log it, show a generic message.
    const error = coerceError(caught);
    deps.logger.error("workflow failed", { runId: run.id, workflow: run.workflow_key, step: currentStep, error: error.message });
    const where = currentStep ? ` in step "${currentStep}"` : "";
    return await finish(deps, lease, {
      status: "failed",
      error: { code: -32603, message: `Workflow ${run.workflow_key} failed${where}` },
    });
  } finally {
    clearInterval(heartbeat);
  }
}

async function finish(deps: ExecuteDeps, lease: Lease, outcome: RunOutcome): Promise<ExecutionEnd> {
  try {
    const done = await finishRun(deps.sql, lease, outcome);
    if (!done) deps.logger.info("terminal write refused: run no longer leased by this worker", { runId: lease.runId });
    return done ? outcome.status : "abandoned";
  } catch (error) {
    deps.logger.warn("could not record terminal state; lease will expire", {
      runId: lease.runId,
      error: coerceError(error).message,
    });
    return "abandoned";
  }
}

/** Keeps the stored result a valid CallToolResult even if a workflow returns something loose. */
function normalizeResult(result: WorkflowResult): WorkflowResult {
  const content = Array.isArray(result?.content) ? result.content : [];
  return {
    content,
    ...(result?.structuredContent ? { structuredContent: result.structuredContent } : {}),
    ...(result?.isError ? { isError: true } : {}),
  };
}
