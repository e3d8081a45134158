import { createHash } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import {
  clearLoginKeys,
  purgeLoginThrottle,
  refundLoginAttempt,
  reserveLoginAttempt,
  type ThrottlePolicy,
} from "../../db/queries/login-throttle";
import { findOperatorByEmail, normalizeEmail, replacePasswordHash } from "../../db/queries/operators";
import { dummyPasswordHash, hashPassword, MAX_PASSWORD_LENGTH, needsRehash, verifyPassword } from "./passwords";
import { recordSignInEvent } from "./sign-in-audit";

const MINUTE = 60_000;

/**
 * Sign-in policy (ASVS 2.2.1). Every attempt is counted BEFORE its password is checked, under
 * three keys: the (email, address) pair, the email, and the address. The pair locks first (one
 * attacker at one address stops quickly without touching anyone else); the email's limit bounds
 * guessing on one account from anywhere to well under 100 an hour (locks double from 1 minute to
 * 15, so about 70); the address's limit stops spraying across accounts. Locks are temporary and say
 * when to retry, so the right person is never locked out for good; a success clears the email and
 * pair keys. Unknown emails are counted the same way, so a lock reveals nothing about an account.
 */
export const LOGIN_THROTTLE = {
  pair: { limit: 5, windowMs: 15 * MINUTE, baseLockMs: 30_000, maxLockMs: 15 * MINUTE },
  email: { limit: 10, windowMs: 15 * MINUTE, baseLockMs: MINUTE, maxLockMs: 15 * MINUTE },
  address: { limit: 20, windowMs: 15 * MINUTE, baseLockMs: MINUTE, maxLockMs: 15 * MINUTE },
  /** Rows untouched this long (and not locked) are purged. */
  idleMs: 24 * 60 * MINUTE,
} as const satisfies Record<string, ThrottlePolicy | number>;

export const MAX_EMAIL_LENGTH = 320;

export type SignedInOperator = { id: string; email: string; name: string; mustChangePassword: boolean };

export type SignInOutcome =
  | { ok: true; operator: SignedInOperator }
  /** One answer for unknown email, wrong password and disabled operator. */
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/** Failed sign-ins name the email only by a hash prefix: a mistyped password pasted into the email field stays out of the trail. */
function emailRef(email: string): string {
  return createHash("sha256").update(email).digest("hex").slice(0, 16);
}

let lastPurge = 0;
function purgeNowAndThen(sql: SqlHandle): void {
  if (Date.now() - lastPurge < 10 * MINUTE) return;
  lastPurge = Date.now();
  void purgeLoginThrottle(sql, LOGIN_THROTTLE.idleMs).catch(() => {});
}

export async function authenticateOperator(
  sql: SqlHandle,
  params: { email: string; password: string; clientAddress?: string | null },
): Promise<SignInOutcome> {
  const address = params.clientAddress ?? null;
  purgeNowAndThen(sql);
  // Over-long input costs nothing but one counted attempt on the address (no hashing, no email key).
  if (params.email.length > MAX_EMAIL_LENGTH || params.password.length > MAX_PASSWORD_LENGTH) {
    if (address) await reserveLoginAttempt(sql, `addr:${address}`, LOGIN_THROTTLE.address);
    await recordSignInEvent(sql, { action: "auth.login.failure", address, fields: { reason: "too_long" } });
    return { ok: false, reason: "invalid" };
  }
  const email = normalizeEmail(params.email);
  const ref = emailRef(email);
  // The address first: a locked address must not burn the account's own counter.
  const keys: [string, ThrottlePolicy][] = [
    ...(address ? ([[`addr:${address}`, LOGIN_THROTTLE.address]] as [string, ThrottlePolicy][]) : []),
    ...(address ? ([[`pair:${address}|${email}`, LOGIN_THROTTLE.pair]] as [string, ThrottlePolicy][]) : []),
    [`email:${email}`, LOGIN_THROTTLE.email],
  ];
  for (const [key, policy] of keys) {
    const reservation = await reserveLoginAttempt(sql, key, policy);
    if (!reservation.allowed) {
      await recordSignInEvent(sql, {
        action: "auth.login.throttled",
        address,
        fields: { emailRef: ref, by: key.split(":")[0] ?? "" },
      });
      return { ok: false, reason: "throttled", retryAfterSeconds: reservation.retryAfterSeconds };
    }
  }

  const operator = email && params.password ? await findOperatorByEmail(sql, email) : undefined;
  // Verify against a dummy hash when the email is unknown: both paths do the same scrypt work.
  const matches = await verifyPassword(params.password, operator?.password_hash ?? (await dummyPasswordHash()));
  if (operator && matches && !operator.disabled_at) {
    await clearLoginKeys(sql, [`email:${email}`, ...(address ? [`pair:${address}|${email}`] : [])]);
    if (address) await refundLoginAttempt(sql, `addr:${address}`);
    if (needsRehash(operator.password_hash)) {
      await replacePasswordHash(sql, { operatorId: operator.id, passwordHash: await hashPassword(params.password) });
    }
    await recordSignInEvent(sql, { action: "auth.login.success", operatorId: operator.id, address });
    return {
      ok: true,
      operator: {
        id: operator.id,
        email: operator.email,
        name: operator.name,
        mustChangePassword: operator.must_change_password,
      },
    };
  }
  await recordSignInEvent(sql, { action: "auth.login.failure", operatorId: operator?.id, address, fields: { emailRef: ref } });
  return { ok: false, reason: "invalid" };
}
