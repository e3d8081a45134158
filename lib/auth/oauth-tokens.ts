import { createHash, randomBytes } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import { touchGrant } from "../../db/queries/oauth-grants";
import { findAccessTokenForAuth } from "../../db/queries/oauth-tokens";
import { isScope, type Principal } from "./api-keys";

/** Token prefixes: `rfa_` access, `rfr_` refresh (API keys are `rf_<id>_…`, so the three never collide). */
export const ACCESS_TOKEN_PREFIX = "rfa_";
export const REFRESH_TOKEN_PREFIX = "rfr_";

const OPAQUE_TOKEN = /^rf[ar]_[A-Za-z0-9_-]{43}$/;

/** The stored form of a code or token: hex SHA-256 (256-bit random secrets need no slow hash). */
export function tokenDigest(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** A fresh opaque secret: the prefix and 32 random bytes, base64url. */
export function mintOpaqueToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/** Tasks are bound to `keyId`: a grant's id, stable across refreshes, so a refreshed token still sees its tasks. */
export function oauthKeyId(grantId: string): string {
  return `oauth:${grantId}`;
}

/**
 * Resolves an OAuth access token to a principal, or undefined for anything unusable (malformed,
 * unknown, expired, for another resource, revoked grant, disabled operator or tenant, lost
 * membership) — callers answer all of those identically. `resource` is the canonical resource this
 * server is (RFC 8707 audience): a token issued for any other is refused.
 */
export async function verifyAccessToken(
  sql: SqlHandle,
  token: string,
  options: { resource: string },
): Promise<Principal | undefined> {
  if (!OPAQUE_TOKEN.test(token) || !token.startsWith(ACCESS_TOKEN_PREFIX)) return undefined;
  const row = await findAccessTokenForAuth(sql, { tokenSha256: tokenDigest(token), resource: options.resource });
  if (!row) return undefined;
  void touchGrant(sql, row.grant_id).catch(() => {});
  return {
    tenantId: row.tenant_id,
    tenantSlug: row.tenant_slug,
    keyId: oauthKeyId(row.grant_id),
    actor: row.actor,
    scopes: row.scopes.filter(isScope),
    maxTtlMs: row.tenant_max_ttl_ms,
  };
}
