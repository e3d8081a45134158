import type { SqlHandle } from "@runifold/store";
import type { Attempt } from "./context";
import { coerceError, WorkflowFailure } from "./errors";
import type { ExecutionEnd } from "./execution-end";
import { CAUSE_MESSAGE_CHARS, causeOf, type FailureCause, publicCause } from "./failure-cause";
import { encodeJson, storableText } from "./json-value";
import type { LeasedWrites } from "./leased-writes";
import type { Logger } from "./logger";
import type { ClaimedRun } from "./ops/claim-runs";
import type { PublicError, RunOutcome } from "./ops/finish-run";
import type { Lease } from "./ops/types";
import { releaseWhenStoreAnswers } from "./release-when-store-answers";
import { isTransientStoreError } from "./transient-errors";

/**
 * How an attempt ends a run (executor.ts): the terminal write, and the failures it records — a
 * stored cause for operators, a public error safe for the run's own tenant.
 */
export type RunEndDeps = { sql: SqlHandle; writes: LeasedWrites; logger: Logger };

/** The run fails with a stored cause: the public error is safe for the run's own tenant only. */
export async function failWith(
  deps: RunEndDeps,
  run: ClaimedRun,
  fail: (error: PublicError, cause: FailureCause) => Promise<ExecutionEnd>,
  caught: unknown,
  attempt: Attempt | undefined,
): Promise<ExecutionEnd> {
  const last = attempt?.lastStepFailure;
  const stepFailure = last && last.error === caught ? last : undefined;
  const step = stepFailure?.step ?? attempt?.currentStep;
  const cause = causeOf(caught, { attempt: run.attempt, step, stepAttempt: stepFailure?.stepAttempt });
  if (caught instanceof WorkflowFailure) {
    const data = caught.data === undefined ? {} : { data: safeData(caught.data) };
    return await fail({ code: caught.code, message: storableText(caught.message, CAUSE_MESSAGE_CHARS), ...data }, cause);
  }
  // Anything else may carry internals (SQL, paths, secrets): operators read the cause, clients a generic line.
  deps.logger.error("workflow failed", { runId: run.id, workflow: run.workflow_key, step, error: cause.message });
  const where = step ? ` in step "${step}"` : "";
  return await fail(publicError(`Workflow ${run.workflow_key} failed${where}`, publicCause(cause)), cause);
}

export function failTimedOut(run: ClaimedRun, fail: (error: PublicError, cause: FailureCause) => Promise<ExecutionEnd>) {
  const cause: FailureCause = { code: "run_timeout", message: "the run passed its timeout while running", attempt: run.attempt };
  return fail(publicError(`Workflow ${run.workflow_key} timed out`, publicCause(cause)), cause);
}

export function publicError(message: string, cause: ReturnType<typeof publicCause>): PublicError {
  return { code: -32603, message, data: { cause } };
}

/** WorkflowFailure.data is shown to the client as is: if it cannot be stored, say so instead. */
function safeData(data: unknown): unknown {
  try {
    return encodeJson(data, "WorkflowFailure data", 64 * 1024).value;
  } catch (error) {
    return { unavailable: coerceError(error).message };
  }
}

/**
 * The terminal write. A store outage hands the run back (it is not the run's fault). Any other
 * refusal would refuse this outcome on every attempt — left alone, the run would be re-claimed and
 * re-run until its lost attempts ran out — so the run fails instead with a fixed cause the store
 * can always hold (`unstorable_outcome`), once.
 */
export async function finish(deps: RunEndDeps, lease: Lease, outcome: RunOutcome): Promise<ExecutionEnd> {
  try {
    const done = await deps.writes.finish(lease, outcome);
    if (!done) deps.logger.info("terminal write refused: run no longer leased by this worker", { runId: lease.runId });
    return done ? outcome.status : "abandoned";
  } catch (error) {
    const message = coerceError(error).message;
    if (isTransientStoreError(error)) {
      void releaseWhenStoreAnswers(deps, lease);
      deps.logger.warn("could not record terminal state; the run is handed back", { runId: lease.runId, error: message });
      return "abandoned";
    }
    if (outcome.status === "failed" && outcome.cause?.code === "unstorable_outcome") {
      deps.logger.error("could not record even the fixed failure; the lease decides", { runId: lease.runId, error: message });
      return "abandoned";
    }
    deps.logger.error("the store refused the terminal state; the run fails with a fixed cause", {
      runId: lease.runId,
      error: message,
    });
    const cause: FailureCause = {
      code: "unstorable_outcome",
      message: `the run's ${outcome.status === "completed" ? "result" : "failure"} could not be stored: ${storableText(message, 500)}`,
      attempt: lease.attempt,
    };
    const fixed: RunOutcome = {
      status: "failed",
      error: publicError("Workflow failed: its outcome could not be stored", publicCause(cause)),
      cause,
    };
    return finish(deps, lease, fixed);
  }
}
