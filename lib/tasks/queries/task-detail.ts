import type { InputRequest, RunRow } from "@runifold/sdk";
import { runColumns } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { HANDLE_EXPIRED_SQL, PENDING_INPUTS_SQL, TERMINAL_PAYLOAD_SQL } from "./task-columns";
import { ONLINE_WORKERS_JSON } from "./workers";

export type TaskDetailRow = RunRow & {
  tenant_slug: string;
  tool_name: string | null;
  route_revision: number | null;
  handle_expired: boolean;
  terminal: {
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
    reason?: string;
    actor?: string;
  } | null;
  pending_inputs: Record<string, InputRequest> | null;
  online_workers: { id: string; workflows: string[] }[];
  db_now: Date;
};

/**
 * One task as an operator sees it. `scope` (the operator's tenants, or null for admin) is in the
 * WHERE clause, so another tenant's task is not found exactly like a missing one.
 */
export async function findTaskDetail(
  sql: SqlHandle,
  params: { taskId: string; scope: string[] | null },
): Promise<TaskDetailRow | undefined> {
  if (!isUuid(params.taskId)) return undefined;
  const rows = await sql.unsafe<TaskDetailRow[]>(
    `SELECT ${runColumns("r")}, t.slug AS tenant_slug, rt.tool_name, rt.revision AS route_revision,
            ${HANDLE_EXPIRED_SQL} AS handle_expired,
            ${TERMINAL_PAYLOAD_SQL} AS terminal,
            ${PENDING_INPUTS_SQL} AS pending_inputs,
            ${ONLINE_WORKERS_JSON} AS online_workers, now() AS db_now
     FROM runs r JOIN tenants t ON t.id = r.tenant_id LEFT JOIN routes rt ON rt.id = r.route_id
     WHERE r.id = $1 AND ($2::uuid[] IS NULL OR r.tenant_id = ANY($2::uuid[]))`,
    [params.taskId, params.scope],
  );
  return rows[0];
}

export type RunEventRow = {
  id: number;
  type: string;
  payload: unknown;
  at: Date;
  /** The operator an `operator:<id>` actor (payload `by` or `actor`) names: their name, else their email. */
  actor_name: string | null;
};

/** The operator an actor event names (`operator:<uuid>` exactly, so the cast cannot fail), else NULL. */
const OPERATOR_ACTOR_ID = `CASE WHEN e.type IN ('input_answered', 'cancelled', 'rerun_of', 'rerun_as', 'signal_sent')
             AND coalesce(e.payload->>'by', e.payload->>'actor') ~ '^operator:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
            THEN substr(coalesce(e.payload->>'by', e.payload->>'actor'), 10)::uuid END`;

/**
 * A page of a task's history, newest first, before event `beforeId`; scoped like findTaskDetail.
 * An `operator:<id>` actor is resolved to the person in the same statement (one primary-key probe
 * per event of the page), and only to an operator who may act in the run's tenant (an admin or a
 * member): a label naming anyone else — a former member, or another tenant's operator — stays the
 * bare label, so the join never shows another tenant's people.
 */
export async function listTaskEvents(
  sql: SqlHandle,
  params: { taskId: string; scope: string[] | null; beforeId?: number; limit: number },
): Promise<RunEventRow[]> {
  if (!isUuid(params.taskId)) return [];
  return sql.unsafe<RunEventRow[]>(
    `SELECT e.id::float8 AS id, e.type, e.payload, e.at, coalesce(nullif(o.name, ''), o.email) AS actor_name
     FROM runs r JOIN run_events e ON e.run_id = r.id
     LEFT JOIN operators o ON o.id = ${OPERATOR_ACTOR_ID}
       AND (o.role = 'admin' OR EXISTS (SELECT 1 FROM operator_tenants m WHERE m.operator_id = o.id AND m.tenant_id = r.tenant_id))
     WHERE r.id = $1 AND ($2::uuid[] IS NULL OR r.tenant_id = ANY($2::uuid[])) AND ($3::bigint IS NULL OR e.id < $3::bigint)
     ORDER BY e.id DESC LIMIT $4`,
    [params.taskId, params.scope, params.beforeId ?? null, params.limit],
  );
}

/** The tenant of a task the operator may see (for actions that need it), or undefined. */
export async function findTaskTenant(
  sql: SqlHandle,
  params: { taskId: string; scope: string[] | null },
): Promise<string | undefined> {
  if (!isUuid(params.taskId)) return undefined;
  const rows = await sql.unsafe<{ tenant_id: string }[]>(
    "SELECT tenant_id FROM runs WHERE id = $1 AND ($2::uuid[] IS NULL OR tenant_id = ANY($2::uuid[]))",
    [params.taskId, params.scope],
  );
  return rows[0]?.tenant_id;
}

export type InboxRow = {
  run_id: string;
  tenant_id: string;
  tenant_slug: string;
  tool_name: string | null;
  workflow_key: string;
  key: string;
  request: InputRequest;
  requested_at: Date;
};

/** Every unanswered input request of waiting runs the operator may answer, oldest first. */
export async function listInbox(sql: SqlHandle, params: { scope: string[] | null; limit: number }): Promise<InboxRow[]> {
  return sql.unsafe<InboxRow[]>(
    `SELECT r.id AS run_id, r.tenant_id, t.slug AS tenant_slug, rt.tool_name, r.workflow_key, i.key, i.request, i.requested_at
     FROM runs r JOIN run_inputs i ON i.run_id = r.id AND i.response IS NULL AND i.answered_at IS NULL
     JOIN tenants t ON t.id = r.tenant_id LEFT JOIN routes rt ON rt.id = r.route_id
     WHERE r.status = 'waiting_input' AND ($1::uuid[] IS NULL OR r.tenant_id = ANY($1::uuid[]))
     ORDER BY i.requested_at, r.id, i.key LIMIT $2`,
    [params.scope, params.limit],
  );
}

/** One unanswered request of a waiting run the operator may answer (the server-side copy of the schema). */
export async function findPendingInput(
  sql: SqlHandle,
  params: { taskId: string; key: string; scope: string[] | null },
): Promise<{ tenant_id: string; request: InputRequest } | undefined> {
  if (!isUuid(params.taskId)) return undefined;
  const rows = await sql.unsafe<{ tenant_id: string; request: InputRequest }[]>(
    `SELECT r.tenant_id, i.request FROM runs r JOIN run_inputs i ON i.run_id = r.id
     WHERE r.id = $1 AND i.key = $2 AND i.response IS NULL AND i.answered_at IS NULL AND r.status = 'waiting_input'
       AND ($3::uuid[] IS NULL OR r.tenant_id = ANY($3::uuid[]))`,
    [params.taskId, params.key, params.scope],
  );
  return rows[0];
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
