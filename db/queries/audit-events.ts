import { jsonParam, type SqlHandle } from "@runifold/store";

export type AuditEventRow = {
  id: number;
  at: Date;
  actor: string;
  operator_id: string | null;
  action: string;
  tenant_id: string | null;
  address: string | null;
  fields: Record<string, unknown>;
};

export async function insertAuditEvent(
  sql: SqlHandle,
  event: {
    actor: string;
    operatorId: string | null;
    action: string;
    tenantId: string | null;
    address: string | null;
    fields: Record<string, unknown>;
  },
): Promise<void> {
  await sql.unsafe(
    `INSERT INTO audit_events (actor, operator_id, action, tenant_id, address, fields)
     VALUES ($1, $2::uuid, $3, $4::uuid, $5, $6::text::jsonb)`,
    [event.actor, event.operatorId, event.action, event.tenantId, event.address, jsonParam(event.fields)],
  );
}

/**
 * Newest first. `beforeId` pages backwards (the last id of the previous page); `action` matches
 * exactly or as a prefix ending in `.` (`auth.` = every sign-in event).
 */
export async function listAuditEvents(
  sql: SqlHandle,
  params: { limit: number; beforeId?: number; action?: string; tenantId?: string },
): Promise<AuditEventRow[]> {
  const action = params.action ?? null;
  return sql.unsafe<AuditEventRow[]>(
    `SELECT id::float8 AS id, at, actor, operator_id, action, tenant_id, address, fields FROM audit_events
     WHERE ($1::bigint IS NULL OR id < $1)
       AND ($2::text IS NULL OR action = $2 OR (right($2, 1) = '.' AND starts_with(action, $2)))
       AND ($3::uuid IS NULL OR tenant_id = $3::uuid)
     ORDER BY id DESC LIMIT $4`,
    [params.beforeId ?? null, action, params.tenantId ?? null, params.limit],
  );
}

/**
 * Removes up to `limit` events older than `olderThanMs` (the trail's retention), oldest first;
 * returns how many went. Bounded, so that one pass never holds a long delete: callers loop.
 */
export async function purgeAuditEvents(sql: SqlHandle, olderThanMs: number, limit = 5_000): Promise<number> {
  const rows = await sql.unsafe(
    `DELETE FROM audit_events WHERE id IN (
       SELECT id FROM audit_events WHERE at < now() - $1 * interval '1 millisecond' ORDER BY at LIMIT $2)
     RETURNING 1`,
    [olderThanMs, limit],
  );
  return rows.length;
}
