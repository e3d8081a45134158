import { PREPARED, type SqlHandle } from "@runifold/store";

export type TokenKind = "access" | "refresh";

/** What the resource server needs to build a principal from an access token: one round trip. */
export type AccessTokenAuthRow = {
  grant_id: string;
  operator_id: string;
  actor: string;
  scopes: string[];
  tenant_id: string;
  tenant_slug: string;
  tenant_max_ttl_ms: number;
};

export type RefreshTokenRow = {
  token_sha256: string;
  grant_id: string;
  scopes: string[];
  used_at: Date | null;
  expired: boolean;
  grant_revoked: boolean;
  client_id: string;
  operator_id: string;
  tenant_id: string;
  resource: string;
  actor: string;
  grant_scopes: string[];
};

export async function insertToken(
  sql: SqlHandle,
  token: { tokenSha256: string; grantId: string; kind: TokenKind; scopes: string[]; ttlS: number },
): Promise<void> {
  await sql.unsafe(
    `INSERT INTO oauth_tokens (token_sha256, grant_id, kind, scopes, expires_at)
     VALUES ($1, $2::uuid, $3, $4::text[], now() + $5 * interval '1 second')`,
    [token.tokenSha256, token.grantId, token.kind, token.scopes, token.ttlS],
  );
}

/**
 * An access token that is usable right now for `resource`: unexpired, its grant unrevoked and bound
 * to that resource, the operator enabled and still allowed in the tenant (an admin, or a member),
 * the tenant enabled. Anything else returns nothing, so every failure looks the same to the caller.
 * The lookup is by the SHA-256 of a 256-bit random token: the index probe reveals nothing an
 * attacker could steer (they cannot choose a digest prefix), so no separate constant-time compare
 * is needed.
 */
export async function findAccessTokenForAuth(
  sql: SqlHandle,
  params: { tokenSha256: string; resource: string },
): Promise<AccessTokenAuthRow | undefined> {
  const rows = await sql.unsafe<AccessTokenAuthRow[]>(
    `SELECT g.id AS grant_id, g.operator_id, g.actor, k.scopes, t.id AS tenant_id, t.slug AS tenant_slug,
            t.max_ttl_ms::float8 AS tenant_max_ttl_ms
     FROM oauth_tokens k
     JOIN oauth_grants g ON g.id = k.grant_id
     JOIN operators o ON o.id = g.operator_id
     JOIN tenants t ON t.id = g.tenant_id
     WHERE k.token_sha256 = $1 AND k.kind = 'access' AND k.expires_at > now()
       AND g.revoked_at IS NULL AND g.resource = $2
       AND o.disabled_at IS NULL AND t.disabled_at IS NULL
       AND (o.role = 'admin' OR EXISTS (SELECT 1 FROM operator_tenants m WHERE m.operator_id = o.id AND m.tenant_id = t.id))`,
    [params.tokenSha256, params.resource],
    PREPARED, // every MCP request with a token runs this: parse and plan once per connection
  );
  return rows[0];
}

/** A refresh token with its grant, row-locked for the rotation that follows (call inside a transaction). */
export async function lockRefreshToken(sql: SqlHandle, tokenSha256: string): Promise<RefreshTokenRow | undefined> {
  const rows = await sql.unsafe<RefreshTokenRow[]>(
    `SELECT k.token_sha256, k.grant_id, k.scopes, k.used_at, k.expires_at <= now() AS expired,
            g.revoked_at IS NOT NULL AS grant_revoked, g.client_id, g.operator_id, g.tenant_id, g.resource, g.actor,
            g.scopes AS grant_scopes
     FROM oauth_tokens k JOIN oauth_grants g ON g.id = k.grant_id
     WHERE k.token_sha256 = $1 AND k.kind = 'refresh'
     FOR UPDATE OF k`,
    [tokenSha256],
  );
  return rows[0];
}

export async function markRefreshTokenUsed(sql: SqlHandle, tokenSha256: string): Promise<void> {
  await sql.unsafe("UPDATE oauth_tokens SET used_at = now() WHERE token_sha256 = $1", [tokenSha256]);
}

/** Which grant and client a token (of either kind) belongs to, for revocation (RFC 7009). */
export async function findTokenGrant(
  sql: SqlHandle,
  tokenSha256: string,
): Promise<{ grant_id: string; client_id: string; tenant_id: string; operator_id: string } | undefined> {
  const rows = await sql.unsafe<{ grant_id: string; client_id: string; tenant_id: string; operator_id: string }[]>(
    `SELECT g.id AS grant_id, g.client_id, g.tenant_id, g.operator_id
     FROM oauth_tokens k JOIN oauth_grants g ON g.id = k.grant_id WHERE k.token_sha256 = $1`,
    [tokenSha256],
  );
  return rows[0];
}

/** Removes tokens that expired more than a day ago; returns how many went. */
export async function purgeExpiredTokens(sql: SqlHandle): Promise<number> {
  const rows = await sql.unsafe("DELETE FROM oauth_tokens WHERE expires_at < now() - interval '1 day' RETURNING 1");
  return rows.length;
}
