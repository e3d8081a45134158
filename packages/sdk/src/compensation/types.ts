/** A step the workflow's body completed before it failed or was cancelled, with its recorded output. */
export type CompletedStep = {
  /** The history key: the step's key, or `repeat:<key>#<n>` for the n-th call of a key in a loop. */
  readonly key: string;
  readonly output: unknown;
};

/**
 * Why the hook runs. `error.code` is the stored cause's code (`step_failed`, `workflow_failure`, …)
 * or `cancelled`; `error.message` is the cause's full message (the hook is the workflow's own code:
 * it sees what operators see, not the generic line an MCP client gets).
 */
export type RunFailure<I> = {
  input: I;
  status: "failed" | "cancelled";
  error: { code: string; message: string; step?: string };
};
