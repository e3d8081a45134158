import type { SqlHandle } from "../../db/client";
import { clearLoginFailures, lockedForSeconds, recordLoginFailure } from "../../db/queries/login-throttle";
import { findOperatorByEmail, normalizeEmail } from "../../db/queries/operators";
import { dummyPasswordHash, verifyPassword } from "./passwords";

/**
 * Sign-in policy. Failures are counted per email and per client address in `login_throttle`
 * (shared by every web instance). Unknown emails are counted too, so a lock reveals nothing about
 * whether an account exists. The address limit is higher: many people may share one address.
 */
export const LOGIN_THROTTLE = {
  emailLimit: 5,
  addressLimit: 20,
  windowMs: 15 * 60_000,
  lockMs: 60_000,
} as const;

export type SignInOutcome =
  | { ok: true; operator: { id: string; email: string; name: string } }
  /** One answer for unknown email, wrong password and disabled operator. */
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

export async function authenticateOperator(
  sql: SqlHandle,
  params: { email: string; password: string; clientAddress?: string | null },
): Promise<SignInOutcome> {
  const email = normalizeEmail(params.email);
  const keys = [`email:${email}`, ...(params.clientAddress ? [`addr:${params.clientAddress}`] : [])];
  const locked = await lockedForSeconds(sql, keys);
  if (locked > 0) return { ok: false, reason: "throttled", retryAfterSeconds: locked };

  const operator = email && params.password ? await findOperatorByEmail(sql, email) : undefined;
  // Verify against a dummy hash when the email is unknown: both paths do the same scrypt work.
  const matches = await verifyPassword(params.password, operator?.password_hash ?? (await dummyPasswordHash()));
  if (operator && matches && !operator.disabled_at) {
    await clearLoginFailures(sql, `email:${email}`);
    return { ok: true, operator: { id: operator.id, email: operator.email, name: operator.name } };
  }
  const { windowMs, lockMs } = LOGIN_THROTTLE;
  await recordLoginFailure(sql, { key: `email:${email}`, limit: LOGIN_THROTTLE.emailLimit, windowMs, lockMs });
  if (params.clientAddress) {
    await recordLoginFailure(sql, { key: `addr:${params.clientAddress}`, limit: LOGIN_THROTTLE.addressLimit, windowMs, lockMs });
  }
  return { ok: false, reason: "invalid" };
}

/**
 * The client address as the web server saw it: the last X-Forwarded-For hop (Next sets it from the
 * socket when absent; a reverse proxy appends the peer it saw). A client can forge earlier hops,
 * which is why the per-email limit, not this one, is what bounds password guessing on an account.
 */
export function clientAddressFrom(headers: Record<string, string | string[] | undefined> | Headers | undefined): string | null {
  if (!headers) return null;
  const raw = headers instanceof Headers ? headers.get("x-forwarded-for") : headers["x-forwarded-for"];
  const value = Array.isArray(raw) ? raw.join(",") : raw;
  const last = value
    ?.split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .at(-1);
  return last ? last.slice(0, 64) : null;
}
