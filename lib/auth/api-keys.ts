import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import { type ApiKeyWithTenant, findApiKeyForAuth, insertApiKey, touchApiKey } from "../../db/queries/api-keys";

export const SCOPES = ["mcp", "tasks:read", "tasks:write"] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: everything tenant-scoped derives from this, never from the request. */
export type Principal = {
  tenantId: string;
  tenantSlug: string;
  /**
   * What tasks are bound to: an API key's id, or an OAuth grant's id (stable across token refreshes),
   * so only the credential that created a task can read it.
   */
  keyId: string;
  /** Who acts, as recorded on writes (answers, cancels): `key:<id>` for a key, the person for a token. */
  actor: string;
  scopes: Scope[];
  /** The tenant's cap on a task handle's lifetime. */
  maxTtlMs: number;
};

const TOKEN_PATTERN = /^rf_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
// Compared against when the key id is unknown, so unknown and wrong keys take the same time.
const DUMMY_DIGEST = sha256("runifold-dummy-secret-for-constant-time-compare");

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Creates a key and returns its token `rf_<keyId>_<secret>` — the only time the secret exists
 * outside the caller; the store keeps its SHA-256.
 */
export async function createApiKey(
  sql: SqlHandle,
  params: {
    tenantId: string;
    name: string;
    scopes?: Scope[];
    expiresAt?: Date | null;
    /** Who mints it (the audit trail's actor label) and, for an operator, its id. */
    createdBy?: string;
    createdByOperatorId?: string | null;
  },
): Promise<{ keyId: string; token: string }> {
  const keyId = randomBytes(8).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  await insertApiKey(sql, {
    id: keyId,
    tenantId: params.tenantId,
    name: params.name,
    secretSha256: sha256(secret),
    scopes: params.scopes ?? [...SCOPES],
    expiresAt: params.expiresAt ?? null,
    createdBy: params.createdBy ?? null,
    createdByOperatorId: params.createdByOperatorId ?? null,
  });
  return { keyId, token: `rf_${keyId}_${secret}` };
}

/** The key id an `rf_<keyId>_<secret>` token names, or undefined for anything else. */
export function apiKeyIdOf(token: string): string | undefined {
  return TOKEN_PATTERN.exec(token)?.[1];
}

/**
 * Resolves a bearer token to a principal, or undefined for anything unusable (malformed, unknown,
 * wrong secret, revoked, expired, disabled tenant) — callers answer all of those identically.
 */
export async function verifyApiKey(sql: SqlHandle, token: string): Promise<Principal | undefined> {
  const keyId = apiKeyIdOf(token);
  const row = keyId ? await findApiKeyForAuth(sql, keyId) : undefined;
  return principalOfKey(sql, token, row);
}

/**
 * The check of verifyApiKey on a key row read by the caller (undefined: no such key), for reads that
 * fetch the key together with something else in one round trip (lib/tasks readApiKeyWithTask).
 * Unknown and wrong keys take the same time: the secret is compared against a dummy digest.
 */
export function principalOfKey(sql: SqlHandle, token: string, row: ApiKeyWithTenant | undefined): Principal | undefined {
  const match = TOKEN_PATTERN.exec(token);
  const presented = Buffer.from(sha256(match?.[2] ?? ""), "hex");
  const expected = Buffer.from(row?.secret_sha256 ?? DUMMY_DIGEST, "hex");
  const secretMatches = timingSafeEqual(presented, expected) && row !== undefined && match?.[1] === row.id;
  if (!row || !secretMatches) return undefined;
  if (row.revoked_at || row.tenant_disabled_at) return undefined;
  if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) return undefined;
  void touchApiKey(sql, row.id).catch(() => {});
  return {
    tenantId: row.tenant_id,
    tenantSlug: row.tenant_slug,
    keyId: row.id,
    actor: `key:${row.id}`,
    scopes: row.scopes.filter(isScope),
    maxTtlMs: row.tenant_max_ttl_ms,
  };
}
