import type { SqlHandle } from "@runifold/store";
import { revokeGrantById } from "../../db/queries/oauth-grants";
import { findTokenGrant } from "../../db/queries/oauth-tokens";
import { tokenDigest } from "../auth";
import { auditOAuth } from "./audit-oauth";
import { readForm } from "./read-body";
import { oauthError } from "./responses";

/**
 * POST /api/oauth/revoke (RFC 7009). Revoking either token of a grant revokes the grant — its
 * access and refresh tokens alike: a client that signs out wants the authorization gone, and
 * RFC 7009 §2.1 allows ("MAY") revoking the whole grant. Unknown, expired and already revoked tokens
 * get the same 200 (§2.2), so the endpoint reveals nothing. `token_type_hint` is only a hint and
 * is not needed: both kinds share one table.
 */
export async function handleRevocationRequest(sql: SqlHandle, request: Request): Promise<Response> {
  const parsed = await readForm(request);
  if (!parsed.ok) return oauthError("invalid_request", parsed.description, parsed.status);
  const token = parsed.form.get("token");
  if (!token) return oauthError("invalid_request", "token is required");
  const clientId = parsed.form.get("client_id");
  const owner = token.length <= 200 ? await findTokenGrant(sql, tokenDigest(token)) : undefined;
  if (owner) {
    // §2.1: a client may revoke only its own tokens; a public client names itself by client_id.
    if (clientId !== null && clientId !== owner.client_id) {
      return oauthError("invalid_client", "the token was not issued to this client");
    }
    const revoked = await revokeGrantById(sql, owner.grant_id, "revoked");
    if (revoked) {
      await auditOAuth(sql, "oauth.grant_revoked", {
        grantId: owner.grant_id,
        clientId: owner.client_id,
        tenantId: owner.tenant_id,
        via: "revocation_endpoint",
      });
    }
  }
  return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
}
