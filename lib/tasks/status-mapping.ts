import type { RunStatus } from "@runifold/sdk";
import type { TaskRecord } from "./queries/task-record";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";
export type Era = "modern" | "legacy";

const BY_RUN_STATUS: Record<RunStatus, TaskStatus> = {
  queued: "working",
  leased: "working",
  sleeping: "working",
  waiting_signal: "working",
  waiting_input: "input_required",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
};

/**
 * The protocol status of a run. The eras differ in one place: a tool result with `isError: true`
 * is `completed` in the extension (ext-tasks, "Task Status": failed is only for JSON-RPC errors)
 * and `failed` in 2025-11-25 (basic/utilities/tasks, "Tool call results with isError").
 */
export function taskStatus(record: Pick<TaskRecord, "status" | "terminal" | "pendingInputs">, era: Era): TaskStatus {
  if (era === "legacy" && record.status === "completed" && record.terminal?.result?.isError) return "failed";
  // waiting_input with nothing left outstanding is about to resume: report it as working.
  if (record.status === "waiting_input" && !record.pendingInputs) return "working";
  return BY_RUN_STATUS[record.status];
}

/** Terminal task statuses are the terminal run statuses, word for word, in both eras. */
export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return status !== "working" && status !== "input_required";
}
