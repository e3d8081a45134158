import type { SqlHandle } from "../client";
import { PREPARED } from "../sql";

export type ApiKeyRow = {
  id: string;
  tenant_id: string;
  name: string;
  secret_sha256: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
};

/** The key joined with what authorization needs from its tenant: one round trip per request. */
export type ApiKeyWithTenant = ApiKeyRow & { tenant_slug: string; tenant_max_ttl_ms: number; tenant_disabled_at: Date | null };

export async function insertApiKey(
  sql: SqlHandle,
  params: { id: string; tenantId: string; name: string; secretSha256: string; scopes: string[]; expiresAt?: Date | null },
): Promise<ApiKeyRow> {
  const rows = await sql.unsafe<ApiKeyRow[]>(
    `INSERT INTO api_keys (id, tenant_id, name, secret_sha256, scopes, expires_at)
     VALUES ($1, $2, $3, $4, $5::text[], $6) RETURNING *`,
    [params.id, params.tenantId, params.name, params.secretSha256, params.scopes, params.expiresAt ?? null],
  );
  return rows[0] as ApiKeyRow;
}

export async function findApiKeyForAuth(sql: SqlHandle, keyId: string): Promise<ApiKeyWithTenant | undefined> {
  const rows = await sql.unsafe<ApiKeyWithTenant[]>(
    `SELECT k.*, t.slug AS tenant_slug, t.max_ttl_ms::float8 AS tenant_max_ttl_ms, t.disabled_at AS tenant_disabled_at
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.id = $1`,
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
    `SELECT id, tenant_id, name, scopes, expires_at, revoked_at, last_used_at, created_at
     FROM api_keys WHERE tenant_id = $1 ORDER BY created_at DESC`,
    [tenantId],
  );
}

/** Revokes a key; `tenantId` (when the caller is scoped to a tenant) keeps other tenants' keys out of reach. */
export async function revokeApiKey(sql: SqlHandle, params: { keyId: string; tenantId?: string }): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE api_keys SET revoked_at = now()
     WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2::uuid) AND revoked_at IS NULL RETURNING id`,
    [params.keyId, params.tenantId ?? null],
  );
  return rows.length === 1;
}
