import type { SqlHandle } from "@runifold/store";

/**
 * What an operator-facing loader, route handler or server action needs from its request: the
 * database, the verified session's operator id, and the request headers (for the same-origin check
 * on mutations). Passed explicitly so tests can call the real functions without a Next request.
 */
export type OperatorContext = {
  sql: SqlHandle;
  sessionOperatorId(): Promise<string | null>;
  /**
   * The session's own claims (the web context always provides them): which sign-in it is and the
   * operator's session version when it was issued. requireOperator refuses a session that was
   * signed out, or issued before "sign out everywhere", a password change or a disable. Contexts
   * built in tests without a session store may leave this out.
   */
  sessionClaims?(): Promise<SessionClaims | null>;
  requestHeaders(): Promise<Headers>;
  /** Origins allowed besides the request's own host (RUNIFOLD_PUBLIC_URL, RUNIFOLD_ALLOWED_ORIGINS). */
  trustedOrigins?: string[];
  /**
   * RUNIFOLD_ADMIN_MFA=required (the web context's default): an admin signed in with a password
   * must enrol a second factor before using the console. Test contexts may leave it out.
   */
  adminMfaRequired?: boolean;
};

export type SessionClaims = { sessionId: string | null; sessionVersion: number | null };
