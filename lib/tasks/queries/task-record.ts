import type { InputRequest, RunStatus, WaitDetail, WorkflowResult } from "@runifold/sdk";
import { isUuid, PREPARED, type SqlHandle } from "@runifold/store";
import type postgres from "postgres";
import { HANDLE_EXPIRED_SQL, PENDING_INPUTS_SQL, TASK_LINKS_SQL, TERMINAL_PAYLOAD_SQL } from "./task-columns";

/** What every task view (MCP eras, CLI, UI) is built from: one row, one round trip. */
export type TaskRecord = {
  id: string;
  tenantId: string;
  routeId: string | null;
  workflowKey: string;
  status: RunStatus;
  origin: string;
  createdByKeyId: string | null;
  ttlMs: number | null;
  pollIntervalMs: number;
  statusMessage: string | null;
  /** The tenant's slug: status messages name whose operators may answer. */
  tenantSlug: string;
  /** What a parked run waits for (a timer, a signal, input), as the engine recorded it; null otherwise. */
  waitDetail: WaitDetail | null;
  progress: { progress: number; total?: number; message?: string } | null;
  createdAt: Date;
  updatedAt: Date;
  /** Present for terminal runs: the terminal event's payload. */
  terminal?: { result?: WorkflowResult; error?: { code: number; message: string; data?: unknown }; reason?: string };
  /** Present while waiting for input: every unanswered request by key. */
  pendingInputs?: Record<string, InputRequest>;
  handleExpired: boolean;
  /** The task that started this one with ctx.child (same tenant), when one did. */
  parentTaskId?: string;
  /** The tasks this one started with ctx.child, oldest first, when it started any. */
  childTaskIds?: string[];
};

/**
 * Reads one task of a tenant. The tenant is in the WHERE clause, so another tenant's ID is simply
 * not found. Expired handles are returned with `handleExpired` so the protocol layer can answer
 * them exactly like unknown IDs while operators still see the run.
 */
export async function readTaskRecord(
  sql: SqlHandle,
  params: { tenantId: string; taskId: string },
): Promise<TaskRecord | undefined> {
  if (!isUuid(params.taskId)) return undefined;
  // Prepared: every tasks/get, listen snapshot and blocking wait runs this one statement.
  const rows = await sql.unsafe(
    `SELECT ${TASK_RECORD_COLUMNS} FROM runs r WHERE r.id = $1 AND r.tenant_id = $2`,
    [params.taskId, params.tenantId],
    PREPARED,
  );
  const row = rows[0];
  return row ? toTaskRecord(row) : undefined;
}

/**
 * The columns a TaskRecord is built from, for `SELECT … FROM runs r` (exported so list queries
 * such as legacy tasks/list build the very same record as a single read).
 */
export const TASK_RECORD_COLUMNS = `r.id, r.tenant_id, r.route_id, r.workflow_key, r.status, r.origin, r.created_by_key_id,
            r.ttl_ms::float8 AS ttl_ms, r.poll_interval_ms, r.status_message, r.progress, r.created_at, r.updated_at,
            r.wait_detail, (SELECT tt.slug FROM tenants tt WHERE tt.id = r.tenant_id) AS tenant_slug,
            ${HANDLE_EXPIRED_SQL} AS handle_expired,
            ${TERMINAL_PAYLOAD_SQL} AS terminal,
            ${PENDING_INPUTS_SQL} AS pending_inputs,
            ${TASK_LINKS_SQL}`;

/** Maps one row of TASK_RECORD_COLUMNS. */
export function toTaskRecord(row: postgres.Row): TaskRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    routeId: row.route_id,
    workflowKey: row.workflow_key,
    status: row.status,
    origin: row.origin,
    createdByKeyId: row.created_by_key_id,
    ttlMs: row.ttl_ms,
    pollIntervalMs: row.poll_interval_ms,
    statusMessage: row.status_message,
    tenantSlug: row.tenant_slug,
    waitDetail: row.wait_detail ?? null,
    progress: row.progress,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    ...(row.terminal ? { terminal: row.terminal } : {}),
    ...(row.pending_inputs ? { pendingInputs: row.pending_inputs } : {}),
    handleExpired: row.handle_expired,
    ...(row.parent_task_id ? { parentTaskId: row.parent_task_id } : {}),
    ...(row.child_task_ids?.length ? { childTaskIds: row.child_task_ids } : {}),
  };
}

/** A record the MCP handle may still reach (not expired); undefined answers like an unknown ID. */
export async function readTaskHandle(
  sql: SqlHandle,
  params: { tenantId: string; taskId: string },
): Promise<TaskRecord | undefined> {
  const record = await readTaskRecord(sql, params);
  return record && !record.handleExpired ? record : undefined;
}
