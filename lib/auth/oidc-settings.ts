import type { Env } from "../env";

/** Operator single sign-on as configured (RUNIFOLD_OIDC_*), or off. */
export type OidcSettings = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button reads "Sign in with <name>". */
  name: string;
  scopes: string;
  /** Where the operator's email is read from; `email` also requires `email_verified: true`. */
  emailClaim: string;
  /** Unknown people are created as members of this tenant; null: they are refused. */
  jitTenantSlug: string | null;
  groupsClaim: string | null;
  adminGroup: string | null;
};

/** The next-auth provider id, so the IdP's redirect URI is `<NEXTAUTH_URL>/api/auth/callback/oidc`. */
export const OIDC_PROVIDER_ID = "oidc";

export function oidcSettings(env: Env): OidcSettings | null {
  const { RUNIFOLD_OIDC_ISSUER: issuer, RUNIFOLD_OIDC_CLIENT_ID: clientId, RUNIFOLD_OIDC_CLIENT_SECRET: clientSecret } = env;
  if (!issuer || !clientId || !clientSecret) return null;
  return {
    // Discovery appends /.well-known/…; a trailing slash on the issuer would double it.
    issuer: issuer.replace(/\/+$/, ""),
    clientId,
    clientSecret,
    name: env.RUNIFOLD_OIDC_NAME,
    scopes: env.RUNIFOLD_OIDC_SCOPES,
    emailClaim: env.RUNIFOLD_OIDC_EMAIL_CLAIM,
    jitTenantSlug: env.RUNIFOLD_OIDC_JIT_TENANT ?? null,
    groupsClaim: env.RUNIFOLD_OIDC_GROUPS_CLAIM ?? null,
    adminGroup: env.RUNIFOLD_OIDC_ADMIN_GROUP ?? null,
  };
}

/** What the login page offers: the SSO provider and button label (null: no SSO), and whether the password form is shown. */
export type SignInMethods = { sso: { providerId: string; name: string } | null; password: boolean };

export function signInMethods(env: Env): SignInMethods {
  const sso = oidcSettings(env);
  return {
    sso: sso ? { providerId: OIDC_PROVIDER_ID, name: sso.name } : null,
    password: env.RUNIFOLD_PASSWORD_SIGNIN === "on",
  };
}
