import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import {
  findOperatorTokenForAuth,
  insertOperatorApiToken,
  type OperatorTokenForAuth,
  touchOperatorApiToken,
} from "../../db/queries/operator-api-tokens";
import type { OperatorRole } from "../../db/queries/operators";

/**
 * What an operator API token may do (docs/security.md "Operator API tokens"), always within its
 * operator's own rights: `admin:read` reads the admin API (tenants, routes, definitions, keys,
 * tasks), `admin:write` changes through it (routes add, keys create/revoke, tasks cancel/rerun),
 * `approvals:decide` lists and decides approvals over /api/v1/approvals.
 */
export const OPERATOR_TOKEN_SCOPES = ["admin:read", "admin:write", "approvals:decide"] as const;
export type OperatorTokenScope = (typeof OPERATOR_TOKEN_SCOPES)[number];

/** An operator token's caller: the operator as they are now, narrowed by the token's scopes. */
export type OperatorPrincipal = {
  tokenId: string;
  operatorId: string;
  email: string;
  role: OperatorRole;
  /** Tenants the operator may see and act on; `null` = every tenant (admin). */
  tenantIds: string[] | null;
  scopes: OperatorTokenScope[];
};

export const OPERATOR_TOKEN_PREFIX = "rfo_";
const TOKEN_PATTERN = /^rfo_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
// Compared against when the token id is unknown, so unknown and wrong tokens take the same time.
const DUMMY_DIGEST = sha256("runifold-dummy-operator-token-for-constant-time-compare");

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function isOperatorTokenScope(value: string): value is OperatorTokenScope {
  return (OPERATOR_TOKEN_SCOPES as readonly string[]).includes(value);
}

export function isOperatorToken(token: string): boolean {
  return token.startsWith(OPERATOR_TOKEN_PREFIX);
}

/**
 * Mints a token `rfo_<tokenId>_<secret>` (256 random bits) for an operator — the only time the
 * secret exists outside the caller; the store keeps its SHA-256 (a random secret needs no slow hash).
 */
export async function mintOperatorToken(
  sql: SqlHandle,
  params: { operatorId: string; name: string; scopes: OperatorTokenScope[]; expiresAt: Date | null },
): Promise<{ tokenId: string; token: string }> {
  const tokenId = randomBytes(8).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  await insertOperatorApiToken(sql, { ...params, id: tokenId, secretSha256: sha256(secret) });
  return { tokenId, token: `${OPERATOR_TOKEN_PREFIX}${tokenId}_${secret}` };
}

/**
 * Resolves a bearer token to its operator, or undefined for anything unusable (malformed, unknown,
 * wrong secret, revoked, expired, disabled operator) — callers answer all of those identically.
 * The operator's role and memberships are read with the token, so a demotion or a removed membership
 * takes effect on the next request.
 */
export async function verifyOperatorToken(sql: SqlHandle, token: string): Promise<OperatorPrincipal | undefined> {
  const match = TOKEN_PATTERN.exec(token);
  const row: OperatorTokenForAuth | undefined = match ? await findOperatorTokenForAuth(sql, match[1] as string) : undefined;
  const presented = Buffer.from(sha256(match?.[2] ?? ""), "hex");
  const expected = Buffer.from(row?.secret_sha256 ?? DUMMY_DIGEST, "hex");
  if (!timingSafeEqual(presented, expected) || !row) return undefined;
  if (row.revoked_at || row.operator_disabled_at) return undefined;
  if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) return undefined;
  void touchOperatorApiToken(sql, row.id).catch(() => {});
  return {
    tokenId: row.id,
    operatorId: row.operator_id,
    email: row.operator_email,
    role: row.operator_role,
    tenantIds: row.operator_role === "admin" ? null : row.tenant_ids,
    scopes: row.scopes.filter(isOperatorTokenScope),
  };
}

/** Whether the token's operator may see the tenant (another tenant answers like an unknown one). */
export function operatorSeesTenant(principal: Pick<OperatorPrincipal, "tenantIds">, tenantId: string): boolean {
  return principal.tenantIds === null || principal.tenantIds.includes(tenantId);
}
