import type { SqlHandle } from "@runifold/store";
import { presentApprovalToCaller } from "./approval-view";
import { type LookupContext, noteRefusedLookup } from "./denied-lookup-audit";
import { readTaskRecord, type TaskRecord } from "./queries/task-record";

/**
 * The authorization context an MCP task handle is bound to, in BOTH protocol eras: the credential
 * (tenant + API key id; for an OAuth token, the key id its principal carries) that created the task.
 * 2025-11-25 basic/utilities/tasks.mdx "Security Considerations": receivers MUST bind tasks to the
 * authorization context and reject tasks/get, tasks/result and tasks/cancel for other contexts;
 * ext-tasks "Security": authorization checks on each task-related request. One rule for both legs,
 * so key B of a tenant cannot reach key A's task through the other era (docs/mcp-legacy.md
 * "Task binding"). Operators (the console) and the signal API are outside MCP and scope by tenant.
 */
export type TaskBinding = {
  tenantId: string;
  keyId: string;
  /**
   * The caller's method and actor, from a request's first lookup: a refusal of another tenant's or
   * credential's task is then audited (denied-lookup-audit.ts). Left out by re-reads (refreshes).
   */
  lookup?: LookupContext;
};

/**
 * The task if it is reachable through this credential's handle; undefined answers like an unknown ID.
 * As this credential sees it: an approval its person may decide now reads as `input_required` with
 * the decision form (approval-view.ts presentApprovalToCaller).
 */
export async function readBoundTaskHandle(
  sql: SqlHandle,
  params: TaskBinding & { taskId: string },
): Promise<TaskRecord | undefined> {
  return presentBoundTask(sql, params, bindTaskHandle(sql, params, await readTaskRecord(sql, params)));
}

/** A bound record (bindTaskHandle's) as this credential sees it; undefined stays undefined. */
export async function presentBoundTask(
  sql: SqlHandle,
  params: TaskBinding,
  record: TaskRecord | undefined,
): Promise<TaskRecord | undefined> {
  return record && presentApprovalToCaller(sql, params, record);
}

/**
 * The binding rule on a record already read (readBoundTaskHandle, or the gate's key-and-task read):
 * an expired handle, another tenant's or another credential's task all answer like an unknown ID.
 */
export function bindTaskHandle(
  sql: SqlHandle,
  params: TaskBinding & { taskId: string },
  record: TaskRecord | undefined,
): TaskRecord | undefined {
  if (record && !record.handleExpired && record.tenantId === params.tenantId && record.createdByKeyId === params.keyId)
    return record;
  // The one place both eras refuse a handle: noted here, off the answer's path (not awaited).
  if (params.lookup)
    noteRefusedLookup(sql, { tenantId: params.tenantId, keyId: params.keyId, taskId: params.taskId, lookup: params.lookup });
  return undefined;
}
