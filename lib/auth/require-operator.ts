import { findOperatorWithTenants, type OperatorRole } from "../../db/queries/operators";
import { AppError } from "../errors";
import type { OperatorContext } from "./operator-context";

export type Operator = {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  /** The sign-in this request belongs to (absent or null in contexts without a session store). */
  sessionId?: string | null;
  /** Tenants this operator may see and act on; `null` = every tenant (admin). */
  tenantIds: string[] | null;
};

export type RequireOperatorOptions = {
  /** Only this role passes (`admin` manages tenants and operators). */
  role?: OperatorRole;
  /** The operator must be able to see this tenant; otherwise "not found", exactly as for a missing one. */
  tenantId?: string;
  /** A mutating request: refuse cross-site Origin / Sec-Fetch-Site before anything else. */
  mutating?: boolean;
  /** Passes even while an admin's reset asks for a new password (the password page and its action). */
  duringPasswordChange?: boolean;
  /** Passes while the sign-in's second factor is still due (the second step itself: /login/mfa and its action). */
  duringSecondFactor?: boolean;
  /** Passes while an admin has yet to enrol a second factor (the enrolment page and its actions). */
  duringMfaEnrolment?: boolean;
  /**
   * The session must have proved who it is within RECENT_AUTH_MS (ASVS 3.7.1: minting keys,
   * creating admins, binding routes, approving OAuth clients, turning MFA off).
   */
  recentAuth?: boolean;
};

/**
 * How long a sign-in, a second factor or a re-entered password or code counts as recent for the
 * sensitive actions (ASVS 3.7.1): 10 minutes, long enough to finish a form, short enough that a
 * session left open on an unattended screen cannot mint a key.
 */
export const RECENT_AUTH_MS = 10 * 60_000;

/**
 * A step of authentication is still due: the console sends the operator to it instead of
 * answering (`step`: the second factor of a password sign-in, an admin's MFA enrolment, or a
 * re-authentication before a sensitive action). Not an access decision: not audited as a denial.
 */
export class AuthenticationStepRequired extends AppError {
  readonly step: "second_factor" | "mfa_enrolment" | "recent_auth";
  constructor(step: AuthenticationStepRequired["step"]) {
    super(
      // A pending second factor is no session yet: anything that cannot redirect answers 401.
      step === "second_factor" ? "unauthenticated" : "forbidden",
      step === "second_factor"
        ? "Enter the code from your authenticator app to finish signing in."
        : step === "mfa_enrolment"
          ? "Admins must set up two-factor authentication first: Account → Two-factor authentication (/account/mfa)."
          : "This needs a recent sign-in: confirm it is you at Account → Confirm (/account/confirm), then try again within 10 minutes.",
    );
    this.step = step;
  }
}

/** Refused while an admin's reset asks this operator for a new password: the console sends it to /account/password. */
export class PasswordChangeRequired extends AppError {
  constructor() {
    super("forbidden", "Choose a new password first.");
  }
}

/**
 * THE authorization check of the operator UI, called by every loader, route handler and server
 * action (proxy.ts only redirects). It re-reads the operator row and memberships on every call,
 * so disabling, demoting or removing a membership takes effect on the next request even though
 * the session JWT is still valid.
 */
export async function requireOperator(ctx: OperatorContext, options: RequireOperatorOptions = {}): Promise<Operator> {
  if (options.mutating) assertSameOrigin(await ctx.requestHeaders(), ctx.trustedOrigins ?? []);
  const operatorId = await ctx.sessionOperatorId();
  if (!operatorId) throw new AppError("unauthenticated");
  const claims = ctx.sessionClaims ? await ctx.sessionClaims() : undefined;
  const row = await findOperatorWithTenants(ctx.sql, operatorId, claims?.sessionId ?? null, RECENT_AUTH_MS);
  if (!row || row.disabled_at) throw new AppError("unauthenticated");
  // A signed-out session, or one issued before the session version was bumped, ends here (ASVS 3.3.1, 3.3.3).
  if (claims !== undefined && (!claims || !row.session_live || claims.sessionVersion !== row.session_version)) {
    throw new AppError("unauthenticated");
  }
  // The password alone never reaches anything past the second step (ASVS 2.8), not even the password page.
  if (claims && row.session_second_factor_pending && !options.duringSecondFactor)
    throw new AuthenticationStepRequired("second_factor");
  if (row.must_change_password && !options.duringPasswordChange) throw new PasswordChangeRequired();
  if (
    claims &&
    ctx.adminMfaRequired &&
    row.role === "admin" &&
    row.session_method === "password" &&
    !row.mfa_enabled_at &&
    !options.duringMfaEnrolment &&
    // A forced password change comes first (the password page would otherwise send it here and back).
    !row.must_change_password &&
    !options.duringSecondFactor
  )
    throw new AuthenticationStepRequired("mfa_enrolment");
  if (claims && options.recentAuth && !row.session_recent) throw new AuthenticationStepRequired("recent_auth");
  const operator: Operator = {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    sessionId: claims?.sessionId ?? null,
    tenantIds: row.role === "admin" ? null : row.tenant_ids,
  };
  if (options.role && operator.role !== options.role) throw new AppError("forbidden", "Only an admin can do that.");
  if (options.tenantId !== undefined && !canSeeTenant(operator, options.tenantId)) throw new AppError("not_found");
  return operator;
}

export function canSeeTenant(operator: Operator, tenantId: string): boolean {
  return operator.tenantIds === null || operator.tenantIds.includes(tenantId);
}

/** The refusal of a cross-site mutation (a CSRF defence, not an access decision: not audited as one). */
export const CROSS_SITE = "Cross-site request refused.";

/**
 * Cross-site request refusal for mutations (server actions, POST handlers). Browsers send
 * Sec-Fetch-Site and Origin on POST; a request with neither is not from a browser page and
 * still needs the session cookie. Next's own server-action Origin/Host check is a second layer.
 */
export function assertSameOrigin(headers: Headers, trustedOrigins: string[]): void {
  const site = headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") throw new AppError("forbidden", CROSS_SITE);
  const origin = headers.get("origin");
  if (!origin) return;
  // The Host the server was asked for, never X-Forwarded-Host: a client chooses that header as it
  // likes (review F13). Behind a proxy that rewrites Host, the browser's Origin is the public URL,
  // which is among `trustedOrigins` (RUNIFOLD_PUBLIC_URL, NEXTAUTH_URL).
  const host = headers.get("host");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new AppError("forbidden", CROSS_SITE);
  }
  if (host && originHost === host) return;
  if (trustedOrigins.some((trusted) => safeOrigin(trusted) === safeOrigin(origin))) return;
  throw new AppError("forbidden", CROSS_SITE);
}

function safeOrigin(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}
