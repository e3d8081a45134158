import type { SqlHandle } from "../client";
import { isUuid } from "../sql";

export type OperatorRole = "admin" | "operator";

export type OperatorRow = {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  role: OperatorRole;
  disabled_at: Date | null;
  created_at: Date;
};

export type OperatorSummary = Omit<OperatorRow, "password_hash"> & { tenant_slugs: string[] };

/** Emails compare case-insensitively: stored lower-cased, looked up lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createOperator(
  sql: SqlHandle,
  params: { email: string; passwordHash: string; role: OperatorRole; name?: string },
): Promise<OperatorRow> {
  const rows = await sql.unsafe<OperatorRow[]>(
    "INSERT INTO operators (email, name, password_hash, role) VALUES ($1, $2, $3, $4) RETURNING *",
    [normalizeEmail(params.email), params.name ?? "", params.passwordHash, params.role],
  );
  return rows[0] as OperatorRow;
}

export async function findOperatorByEmail(sql: SqlHandle, email: string): Promise<OperatorRow | undefined> {
  const rows = await sql.unsafe<OperatorRow[]>("SELECT * FROM operators WHERE email = $1", [normalizeEmail(email)]);
  return rows[0];
}

/**
 * The operator and the tenants it belongs to, in one round trip: what every authorization check
 * re-reads (so a disabled or demoted operator loses access on its next request).
 */
export async function findOperatorWithTenants(
  sql: SqlHandle,
  operatorId: string,
): Promise<(Omit<OperatorRow, "password_hash"> & { tenant_ids: string[] }) | undefined> {
  if (!isUuid(operatorId)) return undefined;
  const rows = await sql.unsafe<(Omit<OperatorRow, "password_hash"> & { tenant_ids: string[] })[]>(
    `SELECT o.id, o.email, o.name, o.role, o.disabled_at, o.created_at,
            coalesce(array_agg(m.tenant_id::text) FILTER (WHERE m.tenant_id IS NOT NULL), '{}') AS tenant_ids
     FROM operators o LEFT JOIN operator_tenants m ON m.operator_id = o.id
     WHERE o.id = $1 GROUP BY o.id`,
    [operatorId],
  );
  return rows[0];
}

export async function countOperators(sql: SqlHandle): Promise<number> {
  const rows = await sql.unsafe<{ n: number }[]>("SELECT count(*)::int AS n FROM operators");
  return rows[0]?.n ?? 0;
}

export async function listOperators(sql: SqlHandle): Promise<OperatorSummary[]> {
  return sql.unsafe<OperatorSummary[]>(
    `SELECT o.id, o.email, o.name, o.role, o.disabled_at, o.created_at,
            coalesce(array_agg(t.slug ORDER BY t.slug) FILTER (WHERE t.slug IS NOT NULL), '{}') AS tenant_slugs
     FROM operators o LEFT JOIN operator_tenants m ON m.operator_id = o.id LEFT JOIN tenants t ON t.id = m.tenant_id
     GROUP BY o.id ORDER BY o.email`,
  );
}

export async function setOperatorDisabled(sql: SqlHandle, params: { operatorId: string; disabled: boolean }): Promise<boolean> {
  const rows = await sql.unsafe(
    "UPDATE operators SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now()) END WHERE id = $1 RETURNING id",
    [params.operatorId, params.disabled],
  );
  return rows.length === 1;
}

export async function disableOperator(sql: SqlHandle, operatorId: string): Promise<boolean> {
  return setOperatorDisabled(sql, { operatorId, disabled: true });
}

export async function addOperatorTenant(sql: SqlHandle, params: { operatorId: string; tenantId: string }): Promise<void> {
  await sql.unsafe("INSERT INTO operator_tenants (operator_id, tenant_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
    params.operatorId,
    params.tenantId,
  ]);
}

export async function removeOperatorTenant(sql: SqlHandle, params: { operatorId: string; tenantId: string }): Promise<boolean> {
  const rows = await sql.unsafe("DELETE FROM operator_tenants WHERE operator_id = $1 AND tenant_id = $2 RETURNING operator_id", [
    params.operatorId,
    params.tenantId,
  ]);
  return rows.length === 1;
}

/** Members of one tenant (admins see every tenant without being members). */
export async function listTenantMembers(sql: SqlHandle, tenantId: string): Promise<Omit<OperatorRow, "password_hash">[]> {
  return sql.unsafe(
    `SELECT o.id, o.email, o.name, o.role, o.disabled_at, o.created_at
     FROM operator_tenants m JOIN operators o ON o.id = m.operator_id WHERE m.tenant_id = $1 ORDER BY o.email`,
    [tenantId],
  );
}
