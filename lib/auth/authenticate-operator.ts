import { createHash } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import {
  clearLoginKeys,
  countLoginAttempt,
  purgeLoginThrottle,
  refundLoginAttempt,
  reserveLoginAttempt,
  type ThrottlePolicy,
} from "../../db/queries/login-throttle";
import { findOperatorByEmail, normalizeEmail, replacePasswordHash } from "../../db/queries/operators";
import { rateKeyOfAddress } from "./client-address";
import { dummyPasswordHash, hashPassword, MAX_PASSWORD_LENGTH, needsRehash, verifyPassword } from "./passwords";
import { recordSignInEvent } from "./sign-in-audit";

const MINUTE = 60_000;

/**
 * Sign-in policy (ASVS 2.2.1): anti-automation that no stranger can turn into a lockout of the
 * right password (review F6). Every attempt is counted BEFORE its password is checked, under three
 * keys:
 * - the (address, email) pair locks: one address guessing at one account stops quickly (locks
 *   double from 30 s to 15 min) without touching the account anywhere else;
 * - the address locks too: one address spraying across accounts stops (everyone behind a shared
 *   address shares it, so a proxy in front must be listed in RUNIFOLD_TRUSTED_PROXIES);
 * - the account (email) only slows down: past `limit` attempts in its window, each attempt waits
 *   `baseDelayMs`, doubling per attempt up to `maxDelayMs`, and is then evaluated. Guessing one
 *   account from many addresses gets slower and slower, and the right password from an address
 *   that has not failed still signs in, within `maxDelayMs`. A hard account lock would be a
 *   lockout anyone who knows the (often public) email could keep up.
 * A success clears the email and pair keys. Unknown emails are counted the same way, so neither a
 * lock nor a delay reveals whether an account exists.
 */
export const LOGIN_THROTTLE = {
  pair: { limit: 5, windowMs: 15 * MINUTE, baseLockMs: 30_000, maxLockMs: 15 * MINUTE },
  address: { limit: 20, windowMs: 15 * MINUTE, baseLockMs: MINUTE, maxLockMs: 15 * MINUTE },
  account: { limit: 10, windowMs: 15 * MINUTE, baseDelayMs: 500, maxDelayMs: 4_000 },
  /** Rows untouched this long (and not locked) are purged. */
  idleMs: 24 * 60 * MINUTE,
} as const;

/** How long an attempt waits when it is the `attempts`-th on its account in the window. */
export function accountDelayMs(attempts: number): number {
  const { limit, baseDelayMs, maxDelayMs } = LOGIN_THROTTLE.account;
  if (attempts <= limit) return 0;
  // 2^(attempts - limit - 1), with the exponent bounded so that a huge count never overflows.
  return Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(attempts - limit - 1, 30));
}

export const MAX_EMAIL_LENGTH = 320;

export type SignedInOperator = {
  id: string;
  email: string;
  name: string;
  mustChangePassword: boolean;
  /** The password alone does not reach the console: the second step (lib/auth/mfa.ts) comes next. */
  mfaEnabled?: boolean;
};

export type SignInOutcome =
  | { ok: true; operator: SignedInOperator }
  /** One answer for unknown email, wrong password and disabled operator. */
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

/** Failed sign-ins name the email only by a hash prefix: a mistyped password pasted into the email field stays out of the trail. */
function emailRef(email: string): string {
  return createHash("sha256").update(email).digest("hex").slice(0, 16);
}

/**
 * Refused attempts cost an attacker nothing (no scrypt), so each one must not cost a stored row
 * (review F9: 1,000 throttled requests wrote 1,000 events). A lock is stored once a minute per
 * throttle key per web process; the refusals between are only counted in login_throttle.
 */
const lastThrottledEvent = new Map<string, number>();
export function firstRefusalThisMinute(key: string): boolean {
  const now = Date.now();
  if (now - (lastThrottledEvent.get(key) ?? 0) < MINUTE) return false;
  if (lastThrottledEvent.size >= 10_000) lastThrottledEvent.clear();
  lastThrottledEvent.set(key, now);
  return true;
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
  // Limits count an IPv6 client by its /64 (rateKeyOfAddress); the audit keeps the full address.
  const limited = address ? rateKeyOfAddress(address) : null;
  if (params.email.length > MAX_EMAIL_LENGTH || params.password.length > MAX_PASSWORD_LENGTH) {
    if (limited) await reserveLoginAttempt(sql, `addr:${limited}`, LOGIN_THROTTLE.address);
    await recordSignInEvent(sql, { action: "auth.login.failure", address, fields: { reason: "too_long" } });
    return { ok: false, reason: "invalid" };
  }
  const email = normalizeEmail(params.email);
  const ref = emailRef(email);
  // The address first: a locked address must not burn the account's own counter.
  const keys: [string, ThrottlePolicy][] = limited
    ? [
        [`addr:${limited}`, LOGIN_THROTTLE.address],
        [`pair:${limited}|${email}`, LOGIN_THROTTLE.pair],
      ]
    : [];
  for (const [key, policy] of keys) {
    const reservation = await reserveLoginAttempt(sql, key, policy);
    if (!reservation.allowed) {
      if (firstRefusalThisMinute(key)) {
        await recordSignInEvent(sql, {
          action: "auth.login.throttled",
          address,
          fields: { emailRef: ref, by: key.split(":")[0] ?? "" },
        });
      }
      return { ok: false, reason: "throttled", retryAfterSeconds: reservation.retryAfterSeconds };
    }
  }

  // The account only slows down (never refuses), whoever is asking.
  const delay = accountDelayMs(await countLoginAttempt(sql, `email:${email}`, LOGIN_THROTTLE.account.windowMs));
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));

  const operator = email && params.password ? await findOperatorByEmail(sql, email) : undefined;
  // Verify against a dummy hash when the email is unknown: both paths do the same scrypt work.
  const matches = await verifyPassword(params.password, operator?.password_hash ?? (await dummyPasswordHash()));
  if (operator && matches && !operator.disabled_at) {
    await clearLoginKeys(sql, [`email:${email}`, ...(limited ? [`pair:${limited}|${email}`] : [])]);
    if (limited) await refundLoginAttempt(sql, `addr:${limited}`);
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
        mfaEnabled: operator.mfa_enabled_at !== null,
      },
    };
  }
  await recordSignInEvent(sql, { action: "auth.login.failure", operatorId: operator?.id, address, fields: { emailRef: ref } });
  return { ok: false, reason: "invalid" };
}
