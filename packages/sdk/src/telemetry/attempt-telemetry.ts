import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ExecutionEnd } from "../execution-end";
import { bindLogger, type Logger } from "../logger";
import type { ClaimedRun } from "../ops/claim-runs";
import { type AttemptOutcome, notify, type WorkerObserver } from "./observer";
import { contextFromCarrier, inSpan, tracer } from "./spans";

/** Why a worker aborts an attempt itself (worker.ts), so the outcome can say cancelled or released instead of lost. */
export const ABORT_CANCELLED = "cancelled";
export const ABORT_STOPPING = "worker stopping";

/**
 * One attempt as the outside sees it: a span that is a child of the trace the run was created in
 * (runs.trace_context), log lines bound to the run (runId, workflow, attempt, tenant), and the
 * observer's claim and end events. `execute` runs inside the span, so the step spans and every
 * log line of the attempt carry its trace.
 */
export async function observeAttempt(
  params: { run: ClaimedRun; logger: Logger; observer?: WorkerObserver; signal: AbortSignal },
  execute: (logger: Logger) => Promise<ExecutionEnd>,
): Promise<ExecutionEnd> {
  const { run, observer } = params;
  const workflow = run.workflow_key;
  notify(observer, "runClaimed", {
    workflow,
    claimableForSeconds: claimableForSeconds(run),
    recoveredExpiredLease: run.claimed_from === "leased",
  });
  const parent = contextFromCarrier(run.trace_context);
  const span = tracer().startSpan(
    "runifold.attempt",
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        "runifold.run_id": run.id,
        "runifold.workflow": workflow,
        "runifold.attempt": run.attempt,
        "runifold.tenant_id": run.tenant_id,
        "runifold.resumed_from": run.claimed_from,
      },
    },
    parent,
  );
  const logger = bindLogger(params.logger, { runId: run.id, workflow, attempt: run.attempt, tenant: run.tenant_id });
  const started = performance.now();
  let outcome = "abandoned" as AttemptOutcome;
  try {
    return await context.with(trace.setSpan(parent, span), async () => {
      const end = await execute(logger);
      outcome = outcomeOf(end, params.signal);
      // Inside the span, so the line carries its trace_id: one line per attempt, for machines (debug).
      logger.debug("attempt ended", { outcome, seconds: (performance.now() - started) / 1000 });
      return end;
    });
  } finally {
    span.setAttribute("runifold.attempt.outcome", outcome);
    if (outcome === "failed" || outcome === "abandoned") span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    span.end();
    notify(observer, "attemptEnded", { workflow, outcome, seconds: (performance.now() - started) / 1000 });
  }
}

/** One execution of a step body: a child span of the attempt, and its duration for the observer. */
export async function observeStep<T>(
  params: { workflow: string; key: string; execution: number; observer?: WorkerObserver },
  execute: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let outcome: "completed" | "failed" = "failed";
  try {
    const attributes = { "runifold.step.key": params.key, "runifold.step.execution": params.execution };
    const value = await inSpan("runifold.step", { attributes }, execute);
    outcome = "completed";
    return value;
  } finally {
    notify(params.observer, "stepExecuted", {
      workflow: params.workflow,
      outcome,
      seconds: (performance.now() - started) / 1000,
    });
  }
}

/** By the database's clock: the claim statement's now() minus the claimable_at it claimed at. */
function claimableForSeconds(run: ClaimedRun): number {
  if (!run.claimable_since) return 0;
  return (new Date(run.db_now).getTime() - new Date(run.claimable_since).getTime()) / 1000;
}

function outcomeOf(end: ExecutionEnd, signal: AbortSignal): AttemptOutcome {
  if (end !== "abandoned") return end;
  const reason = signal.reason instanceof Error ? signal.reason.message : undefined;
  if (reason === ABORT_CANCELLED) return "cancelled";
  if (reason === ABORT_STOPPING) return "released";
  return "abandoned";
}
