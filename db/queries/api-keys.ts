import { isUuid, PREPARED, type SqlHandle } from "@runifold/store";

export type ApiKeyRow = {
  id: string;
  tenant_id: string;
  name: string;
  secret_sha256: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_by: string | null;
  created_by_operator_id: string | null;
  created_at: Date;
};

/** The key joined with what authorization needs from its tenant: one round trip per request. */
export type ApiKeyWithTenant = ApiKeyRow & { tenant_slug: string; tenant_max_ttl_ms: number; tenant_disabled_at: Date | null };

export async function insertApiKey(
  sql: SqlHandle,
  params: {
    id: string;
    tenantId: string;
    name: string;
    secretSha256: string;
    scopes: string[];
    expiresAt?: Date | null;
    createdBy?: string | null;
    createdByOperatorId?: string | null;
  },
): Promise<ApiKeyRow> {
  const rows = await sql.unsafe<ApiKeyRow[]>(
    `INSERT INTO api_keys (id, tenant_id, name, secret_sha256, scopes, expires_at, created_by, created_by_operator_id)
     VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8::uuid) RETURNING *`,
    [
      params.id,
      params.tenantId,
      params.name,
      params.secretSha256,
      params.scopes,
      params.expiresAt ?? null,
      params.createdBy ?? null,
      params.createdByOperatorId ?? null,
    ],
  );
  return rows[0] as ApiKeyRow;
}

/**
 * An ApiKeyWithTenant's columns over `api_keys k JOIN tenants t` — one definition for the plain key
 * read below and the reads that fetch a key together with what a request names (lib/tasks key-and-*).
 */
export const KEY_WITH_TENANT_COLUMNS =
  "k.*, t.slug AS tenant_slug, t.max_ttl_ms::float8 AS tenant_max_ttl_ms, t.disabled_at AS tenant_disabled_at";

export async function findApiKeyForAuth(sql: SqlHandle, keyId: string): Promise<ApiKeyWithTenant | undefined> {
  const rows = await sql.unsafe<ApiKeyWithTenant[]>(
    `SELECT ${KEY_WITH_TENANT_COLUMNS} FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = $1`,
    [keyId],
    PREPARED, // every MCP request runs this: parse and plan once per connection
  );
  return rows[0];
}

/**
 * Records use at most once a minute per key, so authentication does not write on every request:
 * the process remembers its last touch (no round trip at all in between), and the WHERE clause
 * keeps several processes from writing more than once a minute between them.
 */
const lastTouched = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

export async function touchApiKey(sql: SqlHandle, keyId: string): Promise<void> {
  const now = Date.now();
  if (now - (lastTouched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
  if (lastTouched.size > 10_000) lastTouched.clear();
  lastTouched.set(keyId, now);
  await sql.unsafe(
    "UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')",
    [keyId],
  );
}

export async function listApiKeys(sql: SqlHandle, tenantId: string): Promise<Omit<ApiKeyRow, "secret_sha256">[]> {
  return sql.unsafe(
    `SELECT id, tenant_id, name, scopes, expires_at, revoked_at, last_used_at, created_by, created_by_operator_id, created_at
     FROM api_keys WHERE tenant_id = $1 ORDER BY created_at DESC`,
    [tenantId],
  );
}

/**
 * Revokes a key of one tenant: the tenant is required and in the WHERE clause, so another tenant's
 * key is "not found" exactly like a missing one. What the console and any tenant-scoped caller use.
 */
export async function revokeApiKeyForTenant(sql: SqlHandle, params: { keyId: string; tenantId: string }): Promise<boolean> {
  if (!isUuid(params.tenantId)) return false;
  const rows = await sql.unsafe(
    "UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND tenant_id = $2::uuid AND revoked_at IS NULL RETURNING id",
    [params.keyId, params.tenantId],
  );
  return rows.length === 1;
}

/**
 * The explicit admin form (the CLI, at a shell with database access): any tenant's key. Never
 * called from lib/mcp or lib/ui (tests/security/tenant-required.test.ts fails if it is).
 */
export async function revokeApiKeyAsAdmin(sql: SqlHandle, keyId: string): Promise<boolean> {
  const rows = await sql.unsafe("UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id", [
    keyId,
  ]);
  return rows.length === 1;
}

/** @deprecated The admin form under its old name; use revokeApiKeyAsAdmin or revokeApiKeyForTenant. */
export async function revokeApiKey(sql: SqlHandle, params: { keyId: string }): Promise<boolean> {
  return revokeApiKeyAsAdmin(sql, params.keyId);
}

/** Revokes every active key an operator minted (in one tenant, or in all); returns their ids. */
export async function revokeKeysCreatedBy(
  sql: SqlHandle,
  operatorId: string,
  tenantId?: string,
): Promise<{ id: string; tenant_id: string }[]> {
  if (!isUuid(operatorId) || (tenantId !== undefined && !isUuid(tenantId))) return [];
  return sql.unsafe<{ id: string; tenant_id: string }[]>(
    `UPDATE api_keys SET revoked_at = now()
     WHERE created_by_operator_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR tenant_id = $2::uuid)
     RETURNING id, tenant_id`,
    [operatorId, tenantId ?? null],
  );
}

/** The active keys an operator minted, with their tenant, newest first (their Connections page). */
export async function listKeysCreatedBy(
  sql: SqlHandle,
  operatorId: string,
): Promise<
  {
    id: string;
    name: string;
    scopes: string[];
    tenant_id: string;
    tenant_slug: string;
    created_at: Date;
    last_used_at: Date | null;
  }[]
> {
  if (!isUuid(operatorId)) return [];
  return sql.unsafe(
    `SELECT k.id, k.name, k.scopes, k.tenant_id, t.slug AS tenant_slug, k.created_at, k.last_used_at
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
     WHERE k.created_by_operator_id = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
     ORDER BY k.created_at DESC, k.id DESC LIMIT 500`,
    [operatorId],
  );
}
