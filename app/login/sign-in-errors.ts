import type { SsoRefusal } from "@/lib/auth";

/**
 * The login page's words for `?error=<code>`: next-auth sends every failure here (pages.error is
 * /login), and an SSO refusal comes back as `sso_<reason>` (lib/auth/operator-auth.ts). The person
 * sees what happened and what to do, never next-auth's generic error page. `idp` is the button's
 * name (RUNIFOLD_OIDC_NAME).
 */
const SSO_MESSAGES: Record<SsoRefusal, (idp: string) => string> = {
  unknown: (idp) => `Your ${idp} account is not a Runifold operator yet. Ask an admin to add you, then sign in again.`,
  no_email: (idp) => `${idp} did not tell Runifold your email address, so it cannot find your operator account.`,
  email_unverified: (idp) => `${idp} has not verified your email address. Verify it there, then sign in again.`,
  disabled: () => "This operator account is disabled. Ask an admin to enable it.",
  jit_unavailable: () => "New operators cannot be created right now (the sign-up tenant is missing or disabled). Ask an admin.",
};

const NEXT_AUTH_MESSAGES: Record<string, (idp: string) => string> = {
  // The identity provider could not be reached or refused to start (discovery, client id).
  OAuthSignin: (idp) => `Could not start signing in with ${idp}. Try again; if it keeps failing, tell an admin.`,
  // Cancelled at the identity provider, a state or PKCE mismatch, an expired code, a bad ID token.
  OAuthCallback: (idp) => `Signing in with ${idp} did not complete. Try again.`,
  Callback: (idp) => `Signing in with ${idp} did not complete. Try again.`,
  OAuthCreateAccount: (idp) => `Signing in with ${idp} did not complete. Try again.`,
  AccessDenied: () => "Access denied.",
  CredentialsSignin: () => "Invalid email or password.",
  SessionRequired: () => "Sign in to continue.",
  Configuration: () => "Sign-in is not configured correctly on the server. Tell an admin.",
  // The password check's throttle (lib/auth/authenticate-operator.ts), as a form posted without scripts sees it.
  throttled: () => "Too many failed attempts. Try again in a few minutes.",
  // The login page could not set next-auth's CSRF cookie (app/login/page.tsx).
  cookies_refused: () => "Signing in needs cookies. Allow cookies for this site, then reload the page.",
};

const SSO_PREFIX = "sso_";

/** The message for an error code, or null when there is none (no `error` parameter). */
export function signInErrorMessage(code: string | null | undefined, idp: string): string | null {
  if (!code) return null;
  if (code.startsWith(SSO_PREFIX)) {
    const reason = code.slice(SSO_PREFIX.length);
    if (Object.hasOwn(SSO_MESSAGES, reason)) return SSO_MESSAGES[reason as SsoRefusal](idp);
  }
  if (Object.hasOwn(NEXT_AUTH_MESSAGES, code)) return (NEXT_AUTH_MESSAGES[code] as (idp: string) => string)(idp);
  return "Sign-in failed. Try again.";
}
