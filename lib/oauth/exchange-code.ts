import { inTransaction, type SqlHandle } from "@runifold/store";
import { findOAuthClient } from "../../db/queries/oauth-clients";
import { claimAuthorizationCode, linkAuthorizationCodeToGrant } from "../../db/queries/oauth-codes";
import { insertGrant, operatorMayActInTenant, revokeGrantById } from "../../db/queries/oauth-grants";
import { tokenDigest } from "../auth";
import { auditOAuth } from "./audit-oauth";
import type { OAuthConfig } from "./config";
import { issueTokens, tokenResponse } from "./issue-tokens";
import { verifierMatchesChallenge } from "./pkce";
import { clientUsesRefreshTokens } from "./resolve-client";
import { isCanonicalResource } from "./resource";
import { oauthError } from "./responses";

/**
 * grant_type=authorization_code (OAuth 2.1 §4.1.3). The code is consumed by the first exchange
 * whatever its outcome, so a guessed verifier gets one try. A code presented again revokes the
 * grant it produced — every token issued from it (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3).
 */
export async function exchangeAuthorizationCode(sql: SqlHandle, config: OAuthConfig, form: URLSearchParams): Promise<Response> {
  const code = form.get("code");
  const clientId = form.get("client_id");
  const redirectUri = form.get("redirect_uri");
  const verifier = form.get("code_verifier");
  const resource = form.get("resource");
  if (!code || !clientId || !redirectUri || !verifier) {
    return oauthError("invalid_request", "code, client_id, redirect_uri and code_verifier are required");
  }
  const client = clientId.length <= 2_048 ? await findOAuthClient(sql, clientId) : undefined;
  if (!client) return oauthError("invalid_client", "unknown client_id");
  if (resource !== null && !isCanonicalResource(resource, config)) {
    return oauthError("invalid_target", "resource must be this server's MCP endpoint");
  }
  const outcome = await inTransaction(sql, async (tx) => {
    const row = await claimAuthorizationCode(tx, tokenDigest(code));
    if (!row) return oauthError("invalid_grant", "unknown authorization code");
    if (row.used_at) {
      const revoked = row.grant_id ? await revokeGrantById(tx, row.grant_id, "code_reuse") : undefined;
      await auditOAuth(tx, "oauth.token_reuse_detected", {
        kind: "authorization_code",
        clientId: row.client_id,
        grantId: row.grant_id,
        tenantId: row.tenant_id,
        revoked: revoked !== undefined,
      });
      return oauthError("invalid_grant", "authorization code already used");
    }
    if (row.expired) return oauthError("invalid_grant", "authorization code expired");
    if (row.client_id !== clientId) return oauthError("invalid_grant", "authorization code was issued to another client");
    if (row.redirect_uri !== redirectUri)
      return oauthError("invalid_grant", "redirect_uri differs from the authorization request");
    if (!verifierMatchesChallenge(verifier, row.code_challenge))
      return oauthError("invalid_grant", "code_verifier does not match");
    if (resource !== null && !isCanonicalResource(resource, { resource: row.resource })) {
      return oauthError("invalid_target", "resource differs from the authorization request");
    }
    if (!(await operatorMayActInTenant(tx, { operatorId: row.operator_id, tenantId: row.tenant_id }))) {
      return oauthError("invalid_grant", "the authorizing person can no longer act in this tenant");
    }
    const grant = await insertGrant(tx, {
      clientId: row.client_id,
      operatorId: row.operator_id,
      tenantId: row.tenant_id,
      scopes: row.scopes,
      resource: row.resource,
      actor: row.actor,
    });
    await linkAuthorizationCodeToGrant(tx, row.code_sha256, grant.id);
    return issueTokens(tx, config, {
      grantId: grant.id,
      accessScopes: row.scopes,
      refreshScopes: row.scopes,
      withRefreshToken: clientUsesRefreshTokens(client),
    });
  });
  return outcome instanceof Response ? outcome : tokenResponse(outcome);
}
