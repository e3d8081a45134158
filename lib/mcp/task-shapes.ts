import type { WorkflowResult } from "@runifold/sdk";
import type { TaskRecord } from "../tasks";
import { type Era, statusMessageOf, taskStatus } from "../tasks";
import { answerableInputRequests } from "./input-capabilities";

/** The base Task fields, per era (`ttlMs`/`pollIntervalMs` vs `ttl`/`pollInterval`). */
export function taskFields(record: TaskRecord, era: Era) {
  const status = taskStatus(record, era);
  // What it waits for, in words a model can relay (lib/tasks/status-message.ts): the same in every view.
  const statusMessage = statusMessageOf(record);
  const base = {
    taskId: record.id,
    status,
    ...(statusMessage ? { statusMessage } : {}),
    createdAt: record.createdAt.toISOString(),
    lastUpdatedAt: record.updatedAt.toISOString(),
  };
  return era === "modern"
    ? { ...base, ttlMs: record.ttlMs, pollIntervalMs: record.pollIntervalMs }
    : { ...base, ttl: record.ttlMs, pollInterval: record.pollIntervalMs };
}

/**
 * The extension's DetailedTask (ext-tasks "tasks/get"): the Task plus, by status, the inlined
 * `result`, `error` or the outstanding `inputRequests`. No related-task meta on the result.
 * `inputRequests` holds only requests this request's client declared it can answer (mrtr.mdx, Server
 * Requirements 7: never send inputRequests the client has not declared support for); the others
 * stay pending for an operator or another client.
 */
export function detailedTask(record: TaskRecord, request: { clientCapabilities: Record<string, unknown> }) {
  const fields = taskFields(record, "modern");
  switch (fields.status) {
    case "completed":
      return { ...fields, result: { resultType: "complete", ...(record.terminal?.result ?? emptyResult()) } };
    case "failed":
      return { ...fields, error: record.terminal?.error ?? { code: -32603, message: "Task failed" } };
    case "input_required":
      return { ...fields, inputRequests: answerableInputRequests(record.pendingInputs ?? {}, request.clientCapabilities) };
    default:
      return fields;
  }
}

function emptyResult(): WorkflowResult {
  return { content: [] };
}

/** The `_meta` key of a task's links to its parent and child tasks (ctx.child). */
export const TASK_LINKS_META_KEY = "io.runifold/taskLinks";

/**
 * tasks/get's `_meta["io.runifold/taskLinks"]` (both eras): `{ parentTaskId?, childTaskIds? }` for a
 * task started with ctx.child or one that started children; nothing for any other task. The IDs are
 * of the task's own tenant (lib/tasks TASK_LINKS_SQL); whether the caller may read each linked task
 * is its own tasks/get's answer.
 */
export function taskLinksMeta(record: TaskRecord): { _meta?: Record<string, unknown> } {
  if (!record.parentTaskId && !record.childTaskIds) return {};
  const links = {
    ...(record.parentTaskId ? { parentTaskId: record.parentTaskId } : {}),
    ...(record.childTaskIds ? { childTaskIds: record.childTaskIds } : {}),
  };
  return { _meta: { [TASK_LINKS_META_KEY]: links } };
}
