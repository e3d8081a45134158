/**
 * Errors the engine raises or recognises. Workflow code throws `NonRetryableError` to fail a step
 * without retries and `WorkflowFailure` to end the run `failed` with a message that is safe to show
 * clients (neither is retried); any other error's message is stored as the run's failure cause for
 * operators (packages/sdk/src/failure-cause.ts) and clients see a generic one.
 */
export class NonRetryableError extends Error {
  override name = "NonRetryableError";
}

/** Ends the run `failed` with a JSON-RPC-shaped error that is shown to the client as is. */
export class WorkflowFailure extends Error {
  override name = "WorkflowFailure";
  constructor(
    message: string,
    readonly code = -32603,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The workflow input failed its schema; raised at creation, before any row is written. */
export class InvalidWorkflowInput extends Error {
  override name = "InvalidWorkflowInput";
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(message);
  }
}

/** A guarded transition found the run in another state (zero rows updated). */
export class TransitionConflict extends Error {
  override name = "TransitionConflict";
}

/** Control flow, not failure: the run parked itself (sleep, signal, input) and this attempt ends. */
export class RunSuspended extends Error {
  override name = "RunSuspended";
}

/**
 * A misuse the engine refuses before touching the store (a bad argument, a value it cannot store):
 * it is a bug in the workflow, so the step or run fails at once with `causeCode` as its stored cause
 * and nothing is retried (docs/architecture.md, "Attempts, retries, timeouts").
 */
export class WorkflowMisuse extends NonRetryableError {
  override name = "WorkflowMisuse";
  constructor(
    readonly causeCode: "invalid_argument" | "not_serialisable" | "payload_too_large" | "nondeterminism" | "history_too_large",
    message: string,
  ) {
    super(message);
  }
}

/**
 * `await ctx.child(...).result()` found the child task failed or cancelled (docs/authoring.md "Child
 * workflows"). Thrown the same way on every replay (the child's end is recorded in the parent's
 * history), so a parent may catch it and go on. `error` is the child's public error (what a client of
 * the tenant sees for that task); for a cancelled child, `reason` says who cancelled it.
 */
export class ChildWorkflowFailed extends NonRetryableError {
  override name = "ChildWorkflowFailed";
  constructor(
    readonly taskId: string,
    readonly workflow: string,
    readonly status: "failed" | "cancelled",
    readonly error: { code: number; message: string; data?: unknown } | undefined,
    readonly reason?: string,
  ) {
    super(
      status === "failed"
        ? `child task ${taskId} (${workflow}) failed: ${error?.message ?? "no error recorded"}`
        : `child task ${taskId} (${workflow}) was cancelled${reason ? `: ${reason}` : ""}`,
    );
  }
}

/** requestInput's timeout passed with `onTimeout: "fail"`: the run fails (cause `input_timeout`). */
export class InputTimedOut extends NonRetryableError {
  override name = "InputTimedOut";
}

/** The run passed its own timeout (`timeoutMs` of the workflow or of createRun): it fails (`run_timeout`). */
export class RunTimedOut extends Error {
  override name = "RunTimedOut";
}

/** Workflow code let an error escape to the process (an unhandled rejection or an uncaught exception). */
export class UnhandledWorkflowError extends Error {
  override name = "UnhandledWorkflowError";
}

/** A step ran past its `timeoutMs`: its AbortSignal fired and this execution counts as a failed attempt. */
export class StepTimeout extends Error {
  override name = "StepTimeout";
}

/**
 * Control flow: this attempt is over (the run parked, finished, was lost or cancelled). Any ctx call
 * made afterwards — by a dangling promise or code that swallowed a suspension — rejects with this
 * at once and runs nothing.
 */
export class AttemptEnded extends Error {
  override name = "AttemptEnded";
}

/** Control flow: this worker no longer holds the run (lease expired, or the run was cancelled). */
export class LeaseLost extends Error {
  override name = "LeaseLost";
}

/**
 * The lease ran out by this worker's own count while the store could not be reached to renew it
 * (lease-keeper.ts): the attempt stops; if the store answers again before anyone else took the
 * run, the worker hands it back without a lost attempt.
 */
export class LeaseExpiredLocally extends LeaseLost {
  override name = "LeaseExpiredLocally";
}

/** The store failed (connection lost, Postgres restarting): abandon the attempt, never fail the run. */
export class StoreUnavailable extends Error {
  override name = "StoreUnavailable";
}

/**
 * True for the engine's control-flow errors. Workflow code that catches errors around ctx calls
 * must rethrow these (or let them pass): swallowing one does not keep the attempt alive.
 */
export function isControlFlow(error: unknown): boolean {
  return (
    error instanceof RunSuspended ||
    error instanceof LeaseLost ||
    error instanceof AttemptEnded ||
    error instanceof StoreUnavailable
  );
}

export function coerceError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (typeof value === "string") return new Error(value);
  try {
    return new Error(JSON.stringify(value) ?? String(value));
  } catch {
    // A circular or BigInt-carrying value: describing it must not throw in turn.
    return new Error(String(value));
  }
}
