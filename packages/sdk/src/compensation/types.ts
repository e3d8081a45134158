import type { WorkflowContext } from "../workflow";

/** A step the workflow's body completed before it failed or was cancelled, with its recorded output. */
export type CompletedStep = {
  /** The history key: the step's key, or `repeat:<key>#<n>` for the n-th call of a key in a loop. */
  readonly key: string;
  readonly output: unknown;
};

/**
 * What `onFailure` receives as `ctx`: the durable operations a compensation needs. Its steps and
 * sleeps are checkpointed like the body's, under history keys prefixed `onfailure:`, so a worker that
 * dies mid-compensation resumes it and does not run a compensation step already recorded again.
 * Waits for signals, input, approvals and children are not offered: a compensation should not depend
 * on anyone answering it.
 */
export type FailureContext = Pick<WorkflowContext, "runId" | "tenantId" | "attempt" | "signal" | "step" | "sleep" | "log" | "progress"> & {
  /** The body's completed steps, in the order they completed (what a saga compensates: saga.ts). */
  readonly completedSteps: readonly CompletedStep[];
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
