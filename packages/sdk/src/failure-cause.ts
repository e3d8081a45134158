import {
  ChildWorkflowFailed,
  coerceError,
  InputTimedOut,
  InvalidWorkflowInput,
  RunTimedOut,
  StepTimeout,
  UnhandledWorkflowError,
  WorkflowFailure,
  WorkflowMisuse,
} from "./errors";
import { storableText } from "./json-value";

/**
 * Why a run failed, stored on the run (`runs.failure`) for operators: the task page and the CLI show
 * it. MCP clients see only `code`, `step` and `attempt` in the public error's `data.cause` (the
 * message may carry internals: SQL, hosts, secrets), and other tenants see nothing at all.
 */
export type FailureCode =
  | "step_failed"
  | "step_timeout"
  | "workflow_error"
  | "workflow_failure"
  | "invalid_input"
  | "invalid_argument"
  | "not_serialisable"
  | "payload_too_large"
  | "nondeterminism"
  | "run_timeout"
  | "input_timeout"
  | "attempts_exhausted"
  | "unhandled_error"
  | "child_failed"
  | "unstorable_outcome"
  /** The run's history reached its limits (context/history-budget.ts). */
  | "history_too_large";

/** How much of an error's message a cause keeps, in code points. */
export const CAUSE_MESSAGE_CHARS = 2_000;

export type FailureCause = {
  code: FailureCode;
  message: string;
  /** The error's class name, when there was an error. */
  name?: string;
  /** The step that failed, if the failure happened in one. */
  step?: string;
  /** Which execution of that step failed (1 = the first). */
  stepAttempt?: number;
  /** The run's attempt (its claim number) that recorded the failure. */
  attempt: number;
};

/** The cause of an error that escaped workflow code (or a step), classified by its type. */
export function causeOf(error: unknown, where: { attempt: number; step?: string; stepAttempt?: number }): FailureCause {
  const e = coerceError(error);
  const code: FailureCode =
    e instanceof WorkflowMisuse
      ? e.causeCode
      : e instanceof WorkflowFailure
        ? "workflow_failure"
        : e instanceof InvalidWorkflowInput
          ? "invalid_input"
          : e instanceof StepTimeout
            ? "step_timeout"
            : e instanceof InputTimedOut
              ? "input_timeout"
              : e instanceof RunTimedOut
                ? "run_timeout"
                : e instanceof UnhandledWorkflowError
                  ? "unhandled_error"
                  : e instanceof ChildWorkflowFailed
                    ? "child_failed"
                    : where.step
                      ? "step_failed"
                      : "workflow_error";
  return {
    code,
    message: storableText(e.message, CAUSE_MESSAGE_CHARS),
    name: storableText(e.name, 200),
    attempt: where.attempt,
    ...(where.step ? { step: where.step } : {}),
    ...(where.stepAttempt ? { stepAttempt: where.stepAttempt } : {}),
  };
}

/** What the failure cause may show a client of the run's own tenant (no message: it may leak internals). */
export function publicCause(cause: FailureCause): { code: FailureCode; step?: string; attempt: number } {
  return { code: cause.code, attempt: cause.attempt, ...(cause.step ? { step: cause.step } : {}) };
}
