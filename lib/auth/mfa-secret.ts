import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * TOTP secrets at rest (ASVS 2.8.1, 6.4.1). The server must compute codes from the secret, so it
 * cannot be hashed like a recovery code: it is sealed with AES-256-GCM under a key derived
 * (HKDF-SHA256, its own label) from RUNIFOLD_MFA_KEY, or NEXTAUTH_SECRET when that is unset — the
 * shape of the webhook secrets' seal (packages/sdk/src/webhooks/secret.ts). The operator's id is
 * the additional data, so a sealed secret copied onto another operator does not open. A changed
 * key makes every enrolment unreadable: those operators' MFA is then reset by an admin
 * (`runifold operators reset-mfa --email <email>`), which the docs say (docs/security.md).
 */

const VERSION = "v1";

/** The key material from the environment: RUNIFOLD_MFA_KEY wins over NEXTAUTH_SECRET. */
export function mfaKeyMaterial(env: { RUNIFOLD_MFA_KEY?: string; NEXTAUTH_SECRET?: string }): string | undefined {
  return env.RUNIFOLD_MFA_KEY || env.NEXTAUTH_SECRET || undefined;
}

function keyOf(material: string): Buffer {
  if (material.length < 16) throw new Error("the MFA key (RUNIFOLD_MFA_KEY or NEXTAUTH_SECRET) must be 16+ characters");
  return Buffer.from(hkdfSync("sha256", material, "runifold-mfa", "totp-secret-v1", 32));
}

export function sealTotpSecret(secret: string, material: string, operatorId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(material), iv);
  cipher.setAAD(Buffer.from(operatorId));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
}

/** The secret, or null when it does not open (another key, another operator's row, tampering). */
export function openTotpSecret(sealed: string, material: string, operatorId: string): string | null {
  const [version, body] = sealed.split(".", 2);
  if (version !== VERSION || !body) return null;
  const bytes = Buffer.from(body, "base64url");
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(material), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(operatorId));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
