/**
 * Errors the engine raises or recognises. Workflow code throws `NonRetryableError` to fail a step
 * without retries and `WorkflowFailure` to end the run `failed` with a message that is safe to show
 * clients; any other error's message stays in the logs and clients see a generic one.
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

/** Control flow: this worker no longer holds the run (lease expired, or the run was cancelled). */
export class LeaseLost extends Error {
  override name = "LeaseLost";
}

/** The store failed (connection lost, Postgres restarting): abandon the attempt, never fail the run. */
export class StoreUnavailable extends Error {
  override name = "StoreUnavailable";
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
