import type { SqlHandle } from "@runifold/store";
import { clearLoginKeys, refundLoginAttempt, reserveLoginAttempt, type ThrottlePolicy } from "../../db/queries/login-throttle";
import {
  clearMfa,
  completeSecondFactor,
  enableMfa,
  markSessionAuthenticated,
  readMfaSecret,
  setPendingMfaSecret,
  spendRecoveryCode,
  spendTotpStep,
} from "../../db/queries/operator-mfa";
import { findOperatorById } from "../../db/queries/operators";
import { AppError } from "../errors";
import { authenticateOperator, firstRefusalThisMinute, LOGIN_THROTTLE } from "./authenticate-operator";
import { rateKeyOfAddress } from "./client-address";
import { noticeCredentialChange } from "./credential-notice";
import { openTotpSecret, sealTotpSecret } from "./mfa-secret";
import { recordSignInEvent } from "./sign-in-audit";
import {
  isRecoveryCodeShape,
  newRecoveryCodes,
  newTotpSecret,
  normalizeTotpCode,
  recoveryCodeHash,
  totpUri,
  verifyTotp,
} from "./totp";

/**
 * Multi-factor authentication for password operators (ASVS 2.8) and re-authentication (3.7.1).
 * Turning it on or off and spending a recovery code email the operator when SMTP is configured
 * (ASVS 2.2.3, credential-notice.ts).
 *
 * Codes are checked under the sign-in throttle's machinery (login_throttle): every attempt is
 * counted BEFORE it is checked, under the client address (the sign-in's own address key and
 * policy) and under `mfa:<operator id>`, which locks like the sign-in's (address, email) pair (5 in
 * 15 minutes, then 30 s doubling to 15 min). Only someone who already has the password (a pending
 * session) or a signed-in session reaches that key, so its lock is no lockout a stranger can keep
 * up. A success clears the operator key and refunds the address's attempt.
 */
export const MFA_THROTTLE = {
  operator: { limit: 5, windowMs: 15 * 60_000, baseLockMs: 30_000, maxLockMs: 15 * 60_000 },
} as const;

export type CodeOutcome =
  | { ok: true; via: "totp" | "recovery"; recoveryCodesLeft?: number }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

type CodeCheck = {
  operatorId: string;
  code: string;
  clientAddress: string | null;
  keyMaterial: string | undefined;
  /** Recovery codes are accepted as a second factor, never to confirm an enrolment. */
  allowRecovery: boolean;
  /** For the audit trail: what the code was for. */
  purpose: "sign_in" | "reauth" | "enrol";
};

async function reserve(sql: SqlHandle, check: CodeCheck): Promise<CodeOutcome | null> {
  const limited = check.clientAddress ? rateKeyOfAddress(check.clientAddress) : null;
  // The address first, as at sign-in: a locked address must not burn the operator's own counter.
  const keys: [string, ThrottlePolicy][] = [];
  if (limited) keys.push([`addr:${limited}`, LOGIN_THROTTLE.address]);
  keys.push([`mfa:${check.operatorId}`, MFA_THROTTLE.operator]);
  for (const [key, policy] of keys) {
    const reservation = await reserveLoginAttempt(sql, key, policy);
    if (!reservation.allowed) {
      if (firstRefusalThisMinute(key)) {
        await recordSignInEvent(sql, {
          action: "auth.mfa.throttled",
          operatorId: check.operatorId,
          address: check.clientAddress,
          fields: { by: key.split(":")[0] ?? "", purpose: check.purpose },
        });
      }
      return { ok: false, reason: "throttled", retryAfterSeconds: reservation.retryAfterSeconds };
    }
  }
  return null;
}

async function succeeded(sql: SqlHandle, check: CodeCheck): Promise<void> {
  await clearLoginKeys(sql, [`mfa:${check.operatorId}`]);
  const limited = check.clientAddress ? rateKeyOfAddress(check.clientAddress) : null;
  if (limited) await refundLoginAttempt(sql, `addr:${limited}`);
}

/**
 * Checks a TOTP code (or, when allowed, a recovery code) of an operator with MFA on, throttled and
 * audited. A TOTP code is good once; a recovery code is spent.
 */
async function checkCode(sql: SqlHandle, check: CodeCheck): Promise<CodeOutcome> {
  const throttled = await reserve(sql, check);
  if (throttled) return throttled;
  const state = await readMfaSecret(sql, check.operatorId);
  let outcome: CodeOutcome = { ok: false, reason: "invalid" };
  if (state?.sealed && state.enabledAt && check.keyMaterial) {
    if (check.allowRecovery && isRecoveryCodeShape(check.code)) {
      const spent = await spendRecoveryCode(sql, { operatorId: check.operatorId, codeHash: recoveryCodeHash(check.code) });
      if (spent.spent) {
        outcome = { ok: true, via: "recovery", recoveryCodesLeft: spent.remaining };
        await recordSignInEvent(sql, {
          action: "auth.mfa.recovery_code_used",
          operatorId: check.operatorId,
          address: check.clientAddress,
          fields: { remaining: spent.remaining, purpose: check.purpose },
        });
        await noticeCredentialChange(sql, {
          operatorId: check.operatorId,
          change: "recovery_code_used",
          by: "self",
          clientAddress: check.clientAddress,
          details: [`Recovery codes left: ${spent.remaining}`],
        });
      }
    } else {
      const secret = openTotpSecret(state.sealed, check.keyMaterial, check.operatorId);
      const step = secret ? await verifyTotp(secret, check.code) : null;
      if (step !== null && (await spendTotpStep(sql, { operatorId: check.operatorId, step })))
        outcome = { ok: true, via: "totp" };
    }
  }
  if (outcome.ok) await succeeded(sql, check);
  else
    await recordSignInEvent(sql, {
      action: "auth.mfa.failure",
      operatorId: check.operatorId,
      address: check.clientAddress,
      fields: { purpose: check.purpose },
    });
  return outcome;
}

/**
 * The second step of a password sign-in: a right code (or an unused recovery code) lets session
 * `sessionId` reach the console. Anything else leaves it pending (refused by requireOperator).
 */
export async function verifySecondFactor(
  sql: SqlHandle,
  params: { operatorId: string; sessionId: string; code: string; clientAddress: string | null; keyMaterial: string | undefined },
): Promise<CodeOutcome> {
  const outcome = await checkCode(sql, { ...params, allowRecovery: true, purpose: "sign_in" });
  if (!outcome.ok) return outcome;
  if (!(await completeSecondFactor(sql, { sessionId: params.sessionId, operatorId: params.operatorId })))
    throw new AppError("unauthenticated");
  await recordSignInEvent(sql, {
    action: "auth.mfa.success",
    operatorId: params.operatorId,
    address: params.clientAddress,
    fields: { via: outcome.via },
  });
  return outcome;
}

/**
 * Re-authentication (ASVS 3.7.1): the password, or an authenticator code when MFA is on, entered
 * again makes the session recent for RECENT_AUTH_MS. The password goes through the sign-in path,
 * so it is throttled and audited like a sign-in.
 */
export async function reauthenticate(
  sql: SqlHandle,
  params: {
    operatorId: string;
    sessionId: string;
    secret: string;
    clientAddress: string | null;
    keyMaterial: string | undefined;
  },
): Promise<CodeOutcome> {
  const operator = await findOperatorById(sql, params.operatorId);
  if (!operator || operator.disabled_at) throw new AppError("unauthenticated");
  let outcome: CodeOutcome;
  if (operator.mfa_enabled_at && /^\d{6}$/.test(normalizeTotpCode(params.secret))) {
    outcome = await checkCode(sql, { ...params, code: params.secret, allowRecovery: false, purpose: "reauth" });
  } else {
    const signIn = await authenticateOperator(sql, {
      email: operator.email,
      password: params.secret,
      clientAddress: params.clientAddress,
    });
    outcome = signIn.ok ? { ok: true, via: "totp" } : signIn.reason === "throttled" ? signIn : { ok: false, reason: "invalid" };
  }
  if (outcome.ok && !(await markSessionAuthenticated(sql, { sessionId: params.sessionId, operatorId: params.operatorId })))
    throw new AppError("unauthenticated");
  await recordSignInEvent(sql, {
    action: outcome.ok ? "auth.reauth.success" : "auth.reauth.failure",
    operatorId: params.operatorId,
    address: params.clientAddress,
  });
  return outcome;
}

/** A new TOTP secret for the operator, waiting for its first code; shown as text and an otpauth:// URI. */
export async function beginMfaEnrolment(
  sql: SqlHandle,
  params: { operatorId: string; accountName: string; keyMaterial: string | undefined },
): Promise<{ secret: string; uri: string }> {
  if (!params.keyMaterial)
    throw new AppError("bad_request", "Two-factor authentication needs NEXTAUTH_SECRET (or RUNIFOLD_MFA_KEY) on the server.");
  const secret = newTotpSecret();
  const sealed = sealTotpSecret(secret, params.keyMaterial, params.operatorId);
  if (!(await setPendingMfaSecret(sql, { operatorId: params.operatorId, sealed })))
    throw new AppError("conflict", "Two-factor authentication is already on; turn it off first to enrol a new device.");
  return { secret, uri: totpUri(secret, params.accountName) };
}

/** The pending enrolment's secret and URI (the enrolment page shows them until the first code). */
export async function pendingMfaEnrolment(
  sql: SqlHandle,
  params: { operatorId: string; accountName: string; keyMaterial: string | undefined },
): Promise<{ secret: string; uri: string } | null> {
  const state = await readMfaSecret(sql, params.operatorId);
  if (!state?.sealed || state.enabledAt || !params.keyMaterial) return null;
  const secret = openTotpSecret(state.sealed, params.keyMaterial, params.operatorId);
  return secret ? { secret, uri: totpUri(secret, params.accountName) } : null;
}

/**
 * The first code from the new device turns MFA on and returns the recovery codes, the only time
 * they exist outside the store's hashes. The session it was done from counts as authenticated now.
 */
export async function confirmMfaEnrolment(
  sql: SqlHandle,
  params: {
    operatorId: string;
    sessionId: string | null;
    code: string;
    clientAddress: string | null;
    keyMaterial: string | undefined;
  },
): Promise<{ recoveryCodes: string[] }> {
  const state = await readMfaSecret(sql, params.operatorId);
  if (state?.enabledAt) throw new AppError("conflict", "Two-factor authentication is already on.");
  if (!state?.sealed || !params.keyMaterial) throw new AppError("bad_request", "Start the set-up first.");
  const check: CodeCheck = { ...params, allowRecovery: false, purpose: "enrol" };
  const throttled = await reserve(sql, check);
  if (throttled) throw new AppError("bad_request", "Too many attempts; try again later.");
  const secret = openTotpSecret(state.sealed, params.keyMaterial, params.operatorId);
  const step = secret ? await verifyTotp(secret, params.code) : null;
  if (step === null) {
    await recordSignInEvent(sql, {
      action: "auth.mfa.failure",
      operatorId: params.operatorId,
      address: params.clientAddress,
      fields: { purpose: "enrol" },
    });
    throw new AppError("bad_request", "code: that code is not right; check the device's clock and enter the current code");
  }
  const recoveryCodes = newRecoveryCodes();
  if (!(await enableMfa(sql, { operatorId: params.operatorId, step, recoveryCodeHashes: recoveryCodes.map(recoveryCodeHash) })))
    throw new AppError("conflict", "Two-factor authentication is already on.");
  await succeeded(sql, check);
  if (params.sessionId) await markSessionAuthenticated(sql, { sessionId: params.sessionId, operatorId: params.operatorId });
  await recordSignInEvent(sql, {
    action: "auth.mfa.enrolled",
    operatorId: params.operatorId,
    address: params.clientAddress,
    fields: { recoveryCodes: recoveryCodes.length },
  });
  await noticeCredentialChange(sql, {
    operatorId: params.operatorId,
    change: "mfa_enrolled",
    by: "self",
    clientAddress: params.clientAddress,
  });
  return { recoveryCodes };
}

/** Turns the operator's own MFA off (the console asks for a recent authentication first). */
export async function disableOwnMfa(sql: SqlHandle, params: { operatorId: string; clientAddress: string | null }): Promise<void> {
  if (!(await clearMfa(sql, params.operatorId))) throw new AppError("bad_request", "Two-factor authentication is not on.");
  await recordSignInEvent(sql, {
    action: "auth.mfa.disabled",
    operatorId: params.operatorId,
    address: params.clientAddress,
    fields: { by: "self" },
  });
  await noticeCredentialChange(sql, {
    operatorId: params.operatorId,
    change: "mfa_disabled",
    by: "self",
    clientAddress: params.clientAddress,
  });
}
