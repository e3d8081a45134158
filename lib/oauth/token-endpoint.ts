import type { SqlHandle } from "@runifold/store";
import type { OAuthConfig } from "./config";
import { exchangeAuthorizationCode } from "./exchange-code";
import { readForm } from "./read-body";
import { refreshAccessToken } from "./refresh-grant";
import { oauthError } from "./responses";
import { recordTokenResponse } from "./token-metrics";

/**
 * POST /api/oauth/token (OAuth 2.1 §3.2): form-encoded, public clients identified by client_id
 * (token_endpoint_auth_method "none"; a client_secret, which this server never issues, is ignored).
 */
export async function handleTokenRequest(sql: SqlHandle, config: OAuthConfig, request: Request): Promise<Response> {
  const parsed = await readForm(request);
  if (!parsed.ok) return oauthError("invalid_request", parsed.description, parsed.status);
  const grantType = parsed.form.get("grant_type");
  const response = await answerTokenRequest(sql, config, grantType, parsed.form);
  await recordTokenResponse(grantType, response);
  return response;
}

async function answerTokenRequest(sql: SqlHandle, config: OAuthConfig, grantType: string | null, form: URLSearchParams) {
  if (grantType === "authorization_code") return exchangeAuthorizationCode(sql, config, form);
  if (grantType === "refresh_token") return refreshAccessToken(sql, config, form);
  if (!grantType) return oauthError("invalid_request", "grant_type is required");
  return oauthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
}
