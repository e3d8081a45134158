import type { TaskOutcome, TaskView } from "@runifold/client";

/** The CLI's exit codes (docs/cli.md). */
export const EXIT = {
  /** The task (or tool call) completed; also every successful command that reports no task outcome. */
  completed: 0,
  /** Completed, but the tool's result has `isError: true` (an application error). */
  toolError: 1,
  /** The task failed (a protocol error ended it). */
  failed: 2,
  cancelled: 3,
  /** Usage, auth, protocol, network or database error. */
  error: 4,
  /** Still running when the CLI stopped waiting: deadline reached, or input required and not given. */
  pending: 5,
  /** Interrupted (Ctrl-C) while waiting; the task keeps running. */
  interrupted: 130,
} as const;

export function exitCodeOfOutcome(outcome: TaskOutcome): number {
  switch (outcome.kind) {
    case "completed":
      return outcome.isError ? EXIT.toolError : EXIT.completed;
    case "failed":
      return EXIT.failed;
    case "cancelled":
      return EXIT.cancelled;
    case "aborted":
      return EXIT.interrupted;
    default:
      return EXIT.pending;
  }
}

/** For `tasks get`: the outcome's code when terminal, 0 while the task is active. */
export function exitCodeOfTask(task: TaskView): number {
  if (task.status === "completed") return task.result?.isError ? EXIT.toolError : EXIT.completed;
  if (task.status === "failed") return EXIT.failed;
  if (task.status === "cancelled") return EXIT.cancelled;
  return EXIT.completed;
}
