import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Webhook signing secrets at rest. The worker must sign with the secret itself, so it cannot be
 * hashed like an API key; it is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from
 * RUNIFOLD_WEBHOOK_KEY, or NEXTAUTH_SECRET when that is unset, which the web (sealing) and the
 * workers (opening) share. The subscription's id is the additional data, so a sealed secret copied
 * onto another row does not open. docs/security.md "Webhook secrets".
 *
 * A sealed value names the key it was sealed under: `v2.<key tag>.<sealed bytes>` (webhookKeyTag).
 * The delivery run of a subscription carries its secret's tag in the workflow's name (migration
 * 0039), so only a worker holding that key claims it (delivery-workflow.ts). Values sealed before
 * tags (`v1.<sealed bytes>`) still open.
 */

const UNTAGGED = "v1";
const TAGGED = "v2";

/** The key material from the environment: RUNIFOLD_WEBHOOK_KEY wins over NEXTAUTH_SECRET. */
export function webhookKeyMaterial(env: Record<string, string | undefined>): string | undefined {
  return env.RUNIFOLD_WEBHOOK_KEY || env.NEXTAUTH_SECRET || undefined;
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the HMAC key is those bytes). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * A public name for a key: 16 hex characters derived from it with HKDF (another `info` than the
 * sealing key's, so it reveals nothing of that key). Anyone who can read a sealed value can already
 * test a guessed key against it (AES-GCM's tag), so publishing the tag beside it gives away nothing
 * more; like the sealing key it needs 16+ characters of key material.
 */
export function webhookKeyTag(material: string): string {
  if (material.length < 16) throw new Error("the webhook key (RUNIFOLD_WEBHOOK_KEY or NEXTAUTH_SECRET) must be 16+ characters");
  return Buffer.from(hkdfSync("sha256", material, "runifold-webhooks", "webhook-key-tag-v1", 8)).toString("hex");
}

/** The tag of the key a value was sealed under; undefined for a value sealed before tags. */
export function sealedKeyTag(sealed: string): string | undefined {
  const [version, tag] = sealed.split(".", 3);
  return version === TAGGED ? tag : undefined;
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
  const body = Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url");
  return `${TAGGED}.${webhookKeyTag(material)}.${body}`;
}

/** The secret, or an Error saying why it cannot be opened (another key, a tampered value). */
export function openWebhookSecret(sealed: string, material: string, subscriptionId: string): string {
  const parts = sealed.split(".");
  const body =
    parts[0] === UNTAGGED && parts.length === 2 ? parts[1] : parts[0] === TAGGED && parts.length === 3 ? parts[2] : undefined;
  if (!body) throw new Error("the stored webhook secret has an unknown format");
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
