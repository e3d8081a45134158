import type { SqlHandle } from "@runifold/store";
import { presentApprovalToCaller } from "../approval-view";
import { TASK_RECORD_COLUMNS, type TaskRecord, toTaskRecord } from "./task-record";

/** A keyset position: the (created_at, id) of the last task of the previous page. */
export type TaskListPosition = { createdAt: Date; id: string };

/**
 * The tasks one API key created in its tenant, newest first, one keyset page at a time (index
 * runs_tenant_key_created_idx). Expired handles are left out, exactly the set `readTaskHandle`
 * can reach for that key — so a listed task can be fetched and a fetchable one is listed.
 * Returns up to `limit + 1` rows so the caller can tell whether another page exists. (NULLS LAST
 * matches the index's order; plain DESC would sort the key's whole task set instead.) Each task
 * as this key sees it, like tasks/get: an approval its person may decide now is input_required
 * (approval-view.ts; only tasks parked on an approval cost a read more).
 */
export async function listKeyTasks(
  sql: SqlHandle,
  params: { tenantId: string; keyId: string; after?: TaskListPosition; limit: number },
): Promise<(TaskRecord & { toolName: string | null })[]> {
  const rows = await sql.unsafe(
    `SELECT ${TASK_RECORD_COLUMNS}, (SELECT ro.tool_name FROM routes ro WHERE ro.id = r.route_id) AS tool_name FROM runs r
     WHERE r.tenant_id = $1 AND r.created_by_key_id = $2
       AND ($3::timestamptz IS NULL OR (r.created_at, r.id) < ($3::timestamptz, $4::uuid))
       AND (r.ttl_ms IS NULL OR r.created_at + r.ttl_ms * interval '1 millisecond' > now())
     ORDER BY r.created_at DESC NULLS LAST, r.id DESC NULLS LAST
     LIMIT $5`,
    [params.tenantId, params.keyId, params.after?.createdAt.toISOString() ?? null, params.after?.id ?? null, params.limit + 1],
  );
  const caller = { tenantId: params.tenantId, keyId: params.keyId };
  return Promise.all(
    rows.map(async (row) => ({ ...(await presentApprovalToCaller(sql, caller, toTaskRecord(row))), toolName: row.tool_name })),
  );
}
