import { isUuid, type SqlHandle } from "@runifold/store";

export type GrantRow = {
  id: string;
  client_id: string;
  operator_id: string;
  tenant_id: string;
  scopes: string[];
  resource: string;
  actor: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

/** A grant as the console lists it ("connected clients"), with the names people recognise. */
export type GrantSummaryRow = GrantRow & {
  client_name: string;
  client_uri: string | null;
  client_kind: "dcr" | "cimd";
  tenant_slug: string;
  tenant_name: string;
  operator_email: string;
  operator_name: string;
};

export async function insertGrant(
  sql: SqlHandle,
  grant: { clientId: string; operatorId: string; tenantId: string; scopes: string[]; resource: string; actor: string },
): Promise<GrantRow> {
  const rows = await sql.unsafe<GrantRow[]>(
    `INSERT INTO oauth_grants (client_id, operator_id, tenant_id, scopes, resource, actor)
     VALUES ($1, $2::uuid, $3::uuid, $4::text[], $5, $6) RETURNING id, client_id, operator_id, tenant_id, scopes, resource,
       actor, created_at, last_used_at, revoked_at`,
    [grant.clientId, grant.operatorId, grant.tenantId, grant.scopes, grant.resource, grant.actor],
  );
  return rows[0] as GrantRow;
}

/**
 * Whether the operator may still act in the tenant: operator enabled, tenant enabled, and either an
 * admin or a member. Re-checked whenever a code is issued or exchanged and a token is refreshed.
 */
export async function operatorMayActInTenant(sql: SqlHandle, params: { operatorId: string; tenantId: string }): Promise<boolean> {
  if (!isUuid(params.operatorId) || !isUuid(params.tenantId)) return false;
  const rows = await sql.unsafe(
    `SELECT 1 FROM operators o JOIN tenants t ON t.id = $2::uuid
     WHERE o.id = $1::uuid AND o.disabled_at IS NULL AND t.disabled_at IS NULL
       AND (o.role = 'admin' OR EXISTS (SELECT 1 FROM operator_tenants m WHERE m.operator_id = o.id AND m.tenant_id = t.id))`,
    [params.operatorId, params.tenantId],
  );
  return rows.length === 1;
}

/** Revokes one grant (every token under it stops working at once); false when already revoked or unknown. */
export async function revokeGrantById(sql: SqlHandle, grantId: string, reason: string): Promise<GrantRow | undefined> {
  if (!isUuid(grantId)) return undefined;
  const rows = await sql.unsafe<GrantRow[]>(
    `UPDATE oauth_grants SET revoked_at = now(), revoked_reason = $2 WHERE id = $1::uuid AND revoked_at IS NULL
     RETURNING id, client_id, operator_id, tenant_id, scopes, resource, actor, created_at, last_used_at, revoked_at`,
    [grantId, reason],
  );
  return rows[0];
}

/**
 * Revokes every active grant an operator approved, in one tenant or in all (containment: a reset,
 * "sign out everywhere", a disable, a removed membership); returns the revoked grants.
 */
export async function revokeGrantsOfOperator(
  sql: SqlHandle,
  params: { operatorId: string; tenantId?: string; reason: string },
): Promise<GrantRow[]> {
  if (!isUuid(params.operatorId) || (params.tenantId !== undefined && !isUuid(params.tenantId))) return [];
  return sql.unsafe<GrantRow[]>(
    `UPDATE oauth_grants SET revoked_at = now(), revoked_reason = $3
     WHERE operator_id = $1::uuid AND revoked_at IS NULL AND ($2::uuid IS NULL OR tenant_id = $2::uuid)
     RETURNING id, client_id, operator_id, tenant_id, scopes, resource, actor, created_at, last_used_at, revoked_at`,
    [params.operatorId, params.tenantId ?? null, params.reason],
  );
}

/**
 * Revokes a grant only if it belongs to the operator (their own connected clients) or to the tenant
 * (an admin's view of a tenant): another owner's grant is "not found" exactly like a missing one.
 */
export async function revokeGrantOfOwner(
  sql: SqlHandle,
  params: { grantId: string; operatorId?: string; tenantId?: string },
): Promise<GrantRow | undefined> {
  if (!isUuid(params.grantId)) return undefined;
  if (params.operatorId === undefined && params.tenantId === undefined) return undefined;
  if (params.operatorId !== undefined && !isUuid(params.operatorId)) return undefined;
  if (params.tenantId !== undefined && !isUuid(params.tenantId)) return undefined;
  const rows = await sql.unsafe<GrantRow[]>(
    `UPDATE oauth_grants SET revoked_at = now(), revoked_reason = 'revoked'
     WHERE id = $1::uuid AND revoked_at IS NULL
       AND ($2::uuid IS NULL OR operator_id = $2::uuid) AND ($3::uuid IS NULL OR tenant_id = $3::uuid)
     RETURNING id, client_id, operator_id, tenant_id, scopes, resource, actor, created_at, last_used_at, revoked_at`,
    [params.grantId, params.operatorId ?? null, params.tenantId ?? null],
  );
  return rows[0];
}

/** Active (unrevoked) grants of an operator or of a tenant, newest first. */
export async function listActiveGrants(
  sql: SqlHandle,
  owner: { operatorId: string } | { tenantId: string },
): Promise<GrantSummaryRow[]> {
  const operatorId = "operatorId" in owner ? owner.operatorId : null;
  const tenantId = "tenantId" in owner ? owner.tenantId : null;
  if (!isUuid(operatorId ?? tenantId)) return [];
  return sql.unsafe<GrantSummaryRow[]>(
    `SELECT g.id, g.client_id, g.operator_id, g.tenant_id, g.scopes, g.resource, g.actor, g.created_at, g.last_used_at,
            g.revoked_at, c.client_name, c.client_uri, c.kind AS client_kind, t.slug AS tenant_slug, t.name AS tenant_name,
            o.email AS operator_email, o.name AS operator_name
     FROM oauth_grants g
     JOIN oauth_clients c ON c.id = g.client_id
     JOIN tenants t ON t.id = g.tenant_id
     JOIN operators o ON o.id = g.operator_id
     WHERE g.revoked_at IS NULL AND ($1::uuid IS NULL OR g.operator_id = $1::uuid) AND ($2::uuid IS NULL OR g.tenant_id = $2::uuid)
     ORDER BY g.created_at DESC, g.id DESC LIMIT 500`,
    [operatorId, tenantId],
  );
}

/**
 * Records use at most once a minute per grant (like touchApiKey): the process remembers its last
 * touch, and the WHERE clause keeps several processes from writing more often between them.
 */
const lastTouched = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

export async function touchGrant(sql: SqlHandle, grantId: string): Promise<void> {
  const now = Date.now();
  if (now - (lastTouched.get(grantId) ?? 0) < TOUCH_EVERY_MS) return;
  if (lastTouched.size > 10_000) lastTouched.clear();
  lastTouched.set(grantId, now);
  await sql.unsafe(
    `UPDATE oauth_grants SET last_used_at = now()
     WHERE id = $1::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [grantId],
  );
}
