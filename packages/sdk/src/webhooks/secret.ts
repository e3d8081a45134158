import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Webhook signing secrets at rest. The worker must sign with the secret itself, so it cannot be
 * hashed like an API key; it is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from
 * RUNIFOLD_WEBHOOK_KEY, or NEXTAUTH_SECRET when that is unset, which the web (sealing) and the
 * workers (opening) share. The subscription's id is the additional data, so a sealed secret copied
 * onto another row does not open. docs/security.md "Webhook secrets".
 */

const VERSION = "v1";

/** The key material from the environment: RUNIFOLD_WEBHOOK_KEY wins over NEXTAUTH_SECRET. */
export function webhookKeyMaterial(env: Record<string, string | undefined>): string | undefined {
  return env.RUNIFOLD_WEBHOOK_KEY || env.NEXTAUTH_SECRET || undefined;
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the HMAC key is those bytes). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function keyOf(material: string): Buffer {
  if (material.length < 16) throw new Error("the webhook key (RUNIFOLD_WEBHOOK_KEY or NEXTAUTH_SECRET) must be 16+ characters");
  return Buffer.from(hkdfSync("sha256", material, "runifold-webhooks", "webhook-secret-v1", 32));
}

export function sealWebhookSecret(secret: string, material: string, subscriptionId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(material), iv);
  cipher.setAAD(Buffer.from(subscriptionId));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
}

/** The secret, or an Error saying why it cannot be opened (another key, a tampered value). */
export function openWebhookSecret(sealed: string, material: string, subscriptionId: string): string {
  const [version, body] = sealed.split(".", 2);
  if (version !== VERSION || !body) throw new Error("the stored webhook secret has an unknown format");
  const bytes = Buffer.from(body, "base64url");
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(material), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(subscriptionId));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    throw new Error(
      "the webhook secret does not open with this worker's key: RUNIFOLD_WEBHOOK_KEY (or NEXTAUTH_SECRET) differs from the web's; fix the key or rotate the secret",
    );
  }
}
