import type { SqlHandle } from "@runifold/store";
import { insertToken } from "../../db/queries/oauth-tokens";
import { ACCESS_TOKEN_PREFIX, mintOpaqueToken, REFRESH_TOKEN_PREFIX, tokenDigest } from "../auth";
import type { OAuthConfig } from "./config";
import { oauthJson } from "./responses";
import { scopeString } from "./scopes";

export type TokenResponseBody = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
};

/**
 * Mints an access token (and, for clients that use them, a refresh token) of a grant; only their
 * SHA-256 is stored. The refresh token keeps the grant's scopes even when this access token has
 * fewer (RFC 6749 §6: a new refresh token's scope is the old one's).
 */
export async function issueTokens(
  sql: SqlHandle,
  config: OAuthConfig,
  params: { grantId: string; accessScopes: string[]; refreshScopes: string[]; withRefreshToken: boolean },
): Promise<TokenResponseBody> {
  const accessToken = mintOpaqueToken(ACCESS_TOKEN_PREFIX);
  await insertToken(sql, {
    tokenSha256: tokenDigest(accessToken),
    grantId: params.grantId,
    kind: "access",
    scopes: params.accessScopes,
    ttlS: config.accessTokenTtlS,
  });
  let refreshToken: string | undefined;
  if (params.withRefreshToken) {
    refreshToken = mintOpaqueToken(REFRESH_TOKEN_PREFIX);
    await insertToken(sql, {
      tokenSha256: tokenDigest(refreshToken),
      grantId: params.grantId,
      kind: "refresh",
      scopes: params.refreshScopes,
      ttlS: config.refreshTokenTtlS,
    });
  }
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: config.accessTokenTtlS,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope: scopeString(params.accessScopes),
  };
}

/** RFC 6749 §5.1: 200, JSON, `Cache-Control: no-store`. */
export function tokenResponse(body: TokenResponseBody): Response {
  return oauthJson(body);
}
