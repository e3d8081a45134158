export { type DeniedAccess, noteIfDenied, recordAccessDenied } from "./access-denied-audit";
export type { Principal, Scope } from "./api-keys";
export { apiKeyIdOf, createApiKey, isScope, principalOfKey, SCOPES, verifyApiKey } from "./api-keys";
export type { SignedInOperator, SignInOutcome } from "./authenticate-operator";
export { accountDelayMs, authenticateOperator, LOGIN_THROTTLE, MAX_EMAIL_LENGTH } from "./authenticate-operator";
export { clientAddressFrom, parseTrustedProxies, rateKeyOfAddress, resolveClientAddress } from "./client-address";
export {
  type CredentialChange,
  type CredentialNotice,
  NOTICE_DEADLINE_MS,
  type NoticeOutcome,
  noticeCredentialChange,
} from "./credential-notice";
export type { CodeOutcome } from "./mfa";
export {
  beginMfaEnrolment,
  confirmMfaEnrolment,
  disableOwnMfa,
  MFA_THROTTLE,
  pendingMfaEnrolment,
  reauthenticate,
  verifySecondFactor,
} from "./mfa";
export { mfaKeyMaterial, openTotpSecret, sealTotpSecret } from "./mfa-secret";
export {
  ACCESS_TOKEN_PREFIX,
  mintOpaqueToken,
  oauthKeyId,
  REFRESH_TOKEN_PREFIX,
  tokenDigest,
  verifyAccessToken,
} from "./oauth-tokens";
export type { OidcSettings, SignInMethods } from "./oidc-settings";
export { OIDC_PROVIDER_ID, oidcSettings, signInMethods } from "./oidc-settings";
export type { OperatorContext, SessionClaims } from "./operator-context";
export type { OperatorPrincipal, OperatorTokenScope } from "./operator-tokens";
export {
  isOperatorToken,
  isOperatorTokenScope,
  mintOperatorToken,
  OPERATOR_TOKEN_PREFIX,
  OPERATOR_TOKEN_SCOPES,
  operatorSeesTenant,
  verifyOperatorToken,
} from "./operator-tokens";
export { hashPassword, MAX_PASSWORD_LENGTH, needsRehash, SCRYPT_PARAMS, verifyPassword } from "./passwords";
export { installPeerHook, isLoopbackAddress, isLoopbackRequest, peerHookInstalled, peerOf } from "./peer-hook";
export type { Operator, RequireOperatorOptions } from "./require-operator";
export {
  AuthenticationStepRequired,
  assertSameOrigin,
  PasswordChangeRequired,
  RECENT_AUTH_MS,
  requireOperator,
} from "./require-operator";
export type { SsoClaims, SsoOutcome, SsoRefusal, SsoSettings } from "./sso-sign-in";
export { SSO_REFUSALS, signInWithSso } from "./sso-sign-in";
export { newRecoveryCodes, normalizeTotpCode, recoveryCodeHash, TOTP_ISSUER, totpUri, verifyTotp } from "./totp";
