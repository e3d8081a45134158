import { McpProtocolError } from "./errors";
import type { CallToolResult, InputRequest, TaskError, TaskOutcome, TaskStatus, TaskView } from "./types";

const STATUSES: readonly string[] = ["working", "input_required", "completed", "failed", "cancelled"];

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function baseFields(
  raw: unknown,
  era: TaskView["era"],
): Omit<TaskView, "ttlMs" | "pollIntervalMs"> & { raw: Record<string, unknown> } {
  const task = record(raw);
  if (!task || typeof task.taskId !== "string" || typeof task.status !== "string" || !STATUSES.includes(task.status)) {
    throw new McpProtocolError({ message: "Malformed task in the server's answer", kind: "http" });
  }
  const status = task.status as TaskStatus;
  return {
    raw: task,
    taskId: task.taskId,
    status,
    wireStatus: status,
    ...(typeof task.statusMessage === "string" ? { statusMessage: task.statusMessage } : {}),
    createdAt: String(task.createdAt ?? ""),
    lastUpdatedAt: String(task.lastUpdatedAt ?? task.createdAt ?? ""),
    era,
  };
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A CallToolResult without the envelope's `resultType`. */
export function toolResult(raw: unknown): CallToolResult {
  const result = record(raw) ?? {};
  const { resultType: _resultType, ...rest } = result;
  return { ...rest, content: Array.isArray(rest.content) ? (rest.content as CallToolResult["content"]) : [] };
}

function taskError(raw: unknown): TaskError | undefined {
  const error = record(raw);
  if (!error || typeof error.code !== "number") return undefined;
  return {
    code: error.code,
    message: String(error.message ?? "Task failed"),
    ...(error.data !== undefined ? { data: error.data } : {}),
  };
}

/** A 2026-07-28 Task / CreateTaskResult / DetailedTask (tasks/get, notifications/tasks). */
export function fromModern(raw: unknown): TaskView {
  const { raw: task, ...base } = baseFields(raw, "modern");
  const view: TaskView = {
    ...base,
    ttlMs: optionalNumber(task.ttlMs) ?? null,
    ...(optionalNumber(task.pollIntervalMs) !== undefined ? { pollIntervalMs: optionalNumber(task.pollIntervalMs) } : {}),
  };
  if (base.status === "completed" && task.result !== undefined) view.result = toolResult(task.result);
  if (base.status === "failed")
    view.error = taskError(task.error) ?? { code: -32603, message: view.statusMessage ?? "Task failed" };
  if (base.status === "input_required") view.inputRequests = (record(task.inputRequests) ?? {}) as Record<string, InputRequest>;
  return view;
}

/**
 * A 2025-11-25 Task (`ttl`, `pollInterval`), completed by what `tasks/result` returned for a terminal
 * task and by the elicitations seen on it. One difference is normalized away: in that era a tool
 * result with `isError: true` makes the task `failed`; here it is `completed` with `result.isError`
 * (as in the extension), while `wireStatus` keeps the server's word.
 */
export function fromLegacy(
  raw: unknown,
  extra: { result?: unknown; error?: TaskError; inputRequests?: Record<string, InputRequest> } = {},
): TaskView {
  const { raw: task, ...base } = baseFields(raw, "legacy");
  const view: TaskView = {
    ...base,
    ttlMs: optionalNumber(task.ttl) ?? null,
    ...(optionalNumber(task.pollInterval) !== undefined ? { pollIntervalMs: optionalNumber(task.pollInterval) } : {}),
  };
  if ((base.status === "completed" || base.status === "failed") && extra.result !== undefined) {
    view.result = toolResult(extra.result);
    if (base.status === "failed") {
      view.status = "completed";
      view.result.isError = true;
    }
  } else if (base.status === "failed") {
    view.error = extra.error ?? { code: -32603, message: view.statusMessage ?? "Task failed" };
  }
  if (base.status === "input_required" && extra.inputRequests) view.inputRequests = extra.inputRequests;
  return view;
}

/** The terminal outcome a task view stands for, or undefined while it is active. */
export function terminalOutcome(task: TaskView): TaskOutcome | undefined {
  switch (task.status) {
    case "completed": {
      const result = task.result ?? { content: [] };
      return { kind: "completed", task, result, isError: result.isError === true };
    }
    case "failed":
      return { kind: "failed", task, error: task.error ?? { code: -32603, message: task.statusMessage ?? "Task failed" } };
    case "cancelled":
      return { kind: "cancelled", task };
    default:
      return undefined;
  }
}
