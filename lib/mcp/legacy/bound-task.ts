import type { SqlHandle } from "@runifold/store";
import type { Principal } from "../../auth";
import {
  bindTaskHandle,
  isTerminalTaskStatus,
  presentBoundTask,
  readBoundTaskHandle,
  type TaskRecord,
  taskStatus,
} from "../../tasks";
import { McpError, RPC } from "../json-rpc";
import { taskFields } from "../task-shapes";

/**
 * 2025-11-25 "Security Considerations": with an authorization context, receivers MUST bind tasks
 * to it and reject get/result/cancel of other contexts. Our context is the API key, in both eras
 * (lib/tasks/task-binding.ts): a task handle is visible only to the tenant AND key that created it. Another key's, another tenant's,
 * an expired or a purged ID all get this one error (same code, same message), so nothing reveals
 * that an ID exists.
 */
export const taskNotFound = () => new McpError(RPC.invalidParams, "Failed to retrieve task: Task not found");

export function taskIdOf(params: Record<string, unknown>): string {
  if (typeof params.taskId !== "string" || params.taskId.length === 0)
    throw new McpError(RPC.invalidParams, "params.taskId is required");
  return params.taskId;
}

/**
 * The caller's task, or undefined for anything the caller must not see. `method`, on a request's
 * first lookup, has a refusal of another tenant's or key's task audited (lib/tasks/denied-lookup-audit.ts).
 */
export async function readBoundTask(
  sql: SqlHandle,
  principal: Principal,
  taskId: string,
  method?: string,
): Promise<TaskRecord | undefined> {
  const lookup = method ? { method, actor: principal.actor } : undefined;
  return readBoundTaskHandle(sql, { tenantId: principal.tenantId, keyId: principal.keyId, taskId, lookup });
}

export async function requireBoundTask(
  sql: SqlHandle,
  principal: Principal,
  taskId: string,
  method?: string,
): Promise<TaskRecord> {
  const record = await readBoundTask(sql, principal, taskId, method);
  if (!record) throw taskNotFound();
  return record;
}

/** requireBoundTask on a record the gate read with the credential (auth-gate.ts): the same binding, no read. */
export async function bindPrefetchedTask(
  sql: SqlHandle,
  principal: Principal,
  taskId: string,
  record: TaskRecord | undefined,
  method: string,
): Promise<TaskRecord> {
  const handle = { tenantId: principal.tenantId, keyId: principal.keyId, taskId, lookup: { method, actor: principal.actor } };
  const bound = await presentBoundTask(sql, handle, bindTaskHandle(sql, handle, record));
  if (!bound) throw taskNotFound();
  return bound;
}

/**
 * The flat 2025-11-25 Task (`ttl`, `pollInterval`). A tool result with `isError: true` makes the task
 * `failed` in this era; a failed task's `statusMessage` SHOULD carry diagnostics (tasks.mdx "Task
 * Execution Errors"), so it is the result's first text block rather than the last progress line.
 */
export function legacyTask(record: TaskRecord) {
  const fields = taskFields(record, "legacy");
  const result = record.terminal?.result;
  if (fields.status !== "failed" || !result?.isError) return fields;
  const text = result.content.find((block) => block.type === "text");
  return { ...fields, statusMessage: text?.type === "text" ? text.text.slice(0, 500) : "Tool execution failed" };
}

export function isTerminalRecord(record: TaskRecord): boolean {
  return isTerminalTaskStatus(taskStatus(record, "legacy"));
}
