import { isUuid, type SqlHandle } from "@runifold/store";
import type { OperatorRole } from "./operators";

export type OperatorApiTokenRow = {
  id: string;
  operator_id: string;
  name: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
};

/** The token joined with what authorization needs from its operator: one round trip per request. */
export type OperatorTokenForAuth = OperatorApiTokenRow & {
  secret_sha256: string;
  operator_email: string;
  operator_role: OperatorRole;
  operator_disabled_at: Date | null;
  tenant_ids: string[];
};

const PUBLIC_COLUMNS = "id, operator_id, name, scopes, expires_at, revoked_at, last_used_at, created_at";

export async function insertOperatorApiToken(
  sql: SqlHandle,
  params: { id: string; operatorId: string; name: string; secretSha256: string; scopes: string[]; expiresAt: Date | null },
): Promise<OperatorApiTokenRow> {
  const rows = await sql.unsafe<OperatorApiTokenRow[]>(
    `INSERT INTO operator_api_tokens (id, operator_id, name, secret_sha256, scopes, expires_at)
     VALUES ($1, $2::uuid, $3, $4, $5::text[], $6) RETURNING ${PUBLIC_COLUMNS}`,
    [params.id, params.operatorId, params.name, params.secretSha256, params.scopes, params.expiresAt],
  );
  return rows[0] as OperatorApiTokenRow;
}

/** The token, its operator and the operator's tenant memberships as they are now. */
export async function findOperatorTokenForAuth(sql: SqlHandle, tokenId: string): Promise<OperatorTokenForAuth | undefined> {
  const rows = await sql.unsafe<OperatorTokenForAuth[]>(
    `SELECT k.*, o.email AS operator_email, o.role AS operator_role, o.disabled_at AS operator_disabled_at,
            COALESCE((SELECT array_agg(m.tenant_id::text) FROM operator_tenants m WHERE m.operator_id = o.id), '{}') AS tenant_ids
     FROM operator_api_tokens k JOIN operators o ON o.id = k.operator_id WHERE k.id = $1`,
    [tokenId],
  );
  return rows[0];
}

/** An operator's tokens, newest first (their settings page), never the digests. */
export async function listOperatorApiTokens(sql: SqlHandle, operatorId: string): Promise<OperatorApiTokenRow[]> {
  if (!isUuid(operatorId)) return [];
  return sql.unsafe<OperatorApiTokenRow[]>(
    `SELECT ${PUBLIC_COLUMNS} FROM operator_api_tokens WHERE operator_id = $1 ORDER BY created_at DESC, id DESC LIMIT 200`,
    [operatorId],
  );
}

/** Revokes one of the operator's own active tokens; another operator's token is "not found" like a missing one. */
export async function revokeOperatorApiToken(sql: SqlHandle, params: { tokenId: string; operatorId: string }): Promise<boolean> {
  if (!isUuid(params.operatorId)) return false;
  const rows = await sql.unsafe(
    "UPDATE operator_api_tokens SET revoked_at = now() WHERE id = $1 AND operator_id = $2 AND revoked_at IS NULL RETURNING id",
    [params.tokenId, params.operatorId],
  );
  return rows.length === 1;
}

const lastTouched = new Map<string, number>();

/** Records use at most once a minute per token (as touchApiKey does for keys). */
export async function touchOperatorApiToken(sql: SqlHandle, tokenId: string): Promise<void> {
  const now = Date.now();
  if (now - (lastTouched.get(tokenId) ?? 0) < 60_000) return;
  if (lastTouched.size > 10_000) lastTouched.clear();
  lastTouched.set(tokenId, now);
  await sql.unsafe(
    "UPDATE operator_api_tokens SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')",
    [tokenId],
  );
}
