// lib/oauth: the OAuth 2.1 authorization server inside the app (docs/oauth.md) — metadata
// documents (RFC 9728, RFC 8414), client registration (RFC 7591) and Client ID Metadata Documents,
// the authorization request (PKCE S256, RFC 8707, RFC 8252), the token endpoint (code exchange,
// rotating refresh tokens with reuse detection), revocation (RFC 7009) and the grants people see
// as "connected clients". Pure functions of (sql, config, input); the route handlers in app/ bind
// them through lib/server/oauth-route.ts. Access tokens are verified in lib/auth (verifyAccessToken).
export type {
  AuthorizationClient,
  AuthorizationRequestResult,
  InvalidAuthorizationRequest,
  ValidAuthorizationRequest,
} from "./authorize";
export { denyAuthorization, issueAuthorizationCode, validateAuthorizationRequest } from "./authorize";
export type { HostLookup, MetadataDocumentPolicy, OAuthConfig } from "./config";
export { ACCESS_TOKEN_TTL_S, AUTHORIZATION_CODE_TTL_S, createOAuthConfig, REFRESH_TOKEN_TTL_S } from "./config";
export type { GrantSummary } from "./grants";
export { listGrants, revokeGrant } from "./grants";
export {
  authorizationServerMetadata,
  authorizationServerMetadataResponse,
  protectedResourceMetadata,
  protectedResourceMetadataResponse,
} from "./metadata";
export { purgeExpiredOAuthState } from "./purge";
export { redirectHostOf } from "./redirect-uris";
export { handleRegistrationRequest, REGISTRATIONS_PER_MINUTE_PER_ADDRESS, type RegistrationLimit } from "./register-client";
export type { OAuthErrorCode } from "./responses";
export { handleRevocationRequest } from "./revoke-token";
export { handleTokenRequest } from "./token-endpoint";
