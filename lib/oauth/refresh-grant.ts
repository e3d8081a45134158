import { inTransaction, type SqlHandle } from "@runifold/store";
import { operatorMayActInTenant, revokeGrantById } from "../../db/queries/oauth-grants";
import { lockRefreshToken, markRefreshTokenUsed } from "../../db/queries/oauth-tokens";
import { tokenDigest } from "../auth";
import { auditOAuth } from "./audit-oauth";
import type { OAuthConfig } from "./config";
import { issueTokens, tokenResponse } from "./issue-tokens";
import { isCanonicalResource } from "./resource";
import { oauthError } from "./responses";
import { isSubsetOf, parseScopeString } from "./scopes";

/**
 * grant_type=refresh_token with rotation (OAuth 2.1 §4.3.1: public clients' refresh tokens MUST
 * be rotated or sender-constrained). Each use marks the token used and returns a new pair; a used
 * token presented again means two parties hold the family, so the whole grant is revoked (the
 * newest access token included) and the answer is invalid_grant. Strict: no grace period, so two
 * concurrent refreshes with one token end the grant (the row lock serialises them).
 */
export async function refreshAccessToken(sql: SqlHandle, config: OAuthConfig, form: URLSearchParams): Promise<Response> {
  const refreshToken = form.get("refresh_token");
  const clientId = form.get("client_id");
  const resource = form.get("resource");
  const scope = form.get("scope");
  if (!refreshToken || !clientId) return oauthError("invalid_request", "refresh_token and client_id are required");
  if (resource !== null && !isCanonicalResource(resource, config)) {
    return oauthError("invalid_target", "resource must be this server's MCP endpoint");
  }
  const outcome = await inTransaction(sql, async (tx) => {
    const row = await lockRefreshToken(tx, tokenDigest(refreshToken));
    if (!row) return oauthError("invalid_grant", "unknown refresh token");
    if (row.used_at) {
      const revoked = await revokeGrantById(tx, row.grant_id, "refresh_reuse");
      await auditOAuth(tx, "oauth.token_reuse_detected", {
        kind: "refresh_token",
        clientId: row.client_id,
        grantId: row.grant_id,
        tenantId: row.tenant_id,
        revoked: revoked !== undefined,
      });
      return oauthError("invalid_grant", "refresh token already used; the authorization has been revoked");
    }
    if (row.client_id !== clientId) return oauthError("invalid_grant", "refresh token was issued to another client");
    if (row.grant_revoked) return oauthError("invalid_grant", "the authorization has been revoked");
    if (row.expired) return oauthError("invalid_grant", "refresh token expired");
    let accessScopes = row.scopes;
    if (scope !== null) {
      const asked = parseScopeString(scope);
      if (!asked || !isSubsetOf(asked, row.scopes)) return oauthError("invalid_scope", "scope exceeds the original grant");
      if (asked.length > 0) accessScopes = asked;
    }
    if (!(await operatorMayActInTenant(tx, { operatorId: row.operator_id, tenantId: row.tenant_id }))) {
      return oauthError("invalid_grant", "the authorizing person can no longer act in this tenant");
    }
    await markRefreshTokenUsed(tx, row.token_sha256);
    return issueTokens(tx, config, { grantId: row.grant_id, accessScopes, refreshScopes: row.scopes, withRefreshToken: true });
  });
  return outcome instanceof Response ? outcome : tokenResponse(outcome);
}
