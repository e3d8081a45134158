import { createHash, randomBytes } from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";

/**
 * TOTP (RFC 6238) through otplib: 6 digits, 30-second steps, SHA-1 (what every authenticator app
 * reads from an otpauth:// URI), a 160-bit secret, and one step of clock drift either way. Recovery
 * codes are 125 random bits written as 5 groups of 5 base32 characters, stored as SHA-256 (random
 * enough that a plain hash cannot be reversed by guessing, as for API keys).
 */

export const TOTP_ISSUER = "Runifold";
const DRIFT_SECONDS = 30;

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The otpauth:// URI an authenticator app takes (typed in, or from a QR code of it). */
export function totpUri(secret: string, accountName: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: accountName, secret });
}

/** A 6-digit code as typed: spaces and dashes dropped. */
export function normalizeTotpCode(code: string): string {
  return code.replace(/[\s-]/g, "");
}

/** The time step the code belongs to when it is right (now, or one step either side); null otherwise. */
export async function verifyTotp(secret: string, code: string): Promise<number | null> {
  const token = normalizeTotpCode(code);
  if (!/^\d{6}$/.test(token)) return null;
  try {
    const result = await verify({ secret, token, epochTolerance: DRIFT_SECONDS });
    // otplib's verify answers for HOTP and TOTP alike; a TOTP result carries its time step.
    return result.valid && "timeStep" in result && typeof result.timeStep === "number" ? result.timeStep : null;
  } catch {
    return null;
  }
}

export const RECOVERY_CODE_COUNT = 10;
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** Fresh recovery codes, e.g. `K7QXM-2PDRA-VN4TE-H6WYB-3JCLS` (each byte mod 32 is uniform: 256 = 8 × 32). */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(25);
    const chars = Array.from(bytes, (byte) => BASE32[byte % 32]).join("");
    return (chars.match(/.{5}/g) ?? []).join("-");
  });
}

/** A recovery code as typed: case, spaces and dashes do not matter. */
export function normalizeRecoveryCode(code: string): string {
  return code.toUpperCase().replace(/[^A-Z2-7]/g, "");
}

export function recoveryCodeHash(code: string): string {
  return createHash("sha256").update(normalizeRecoveryCode(code)).digest("hex");
}

/** Whether the input looks like a recovery code rather than a 6-digit TOTP code. */
export function isRecoveryCodeShape(code: string): boolean {
  return normalizeRecoveryCode(code).length >= 25;
}
