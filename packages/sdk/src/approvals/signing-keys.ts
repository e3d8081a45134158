import { randomUUID } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { openWebhookSecret, sealWebhookSecret } from "../webhooks/secret";

/**
 * The ES256 keys that sign approval receipts, kept in the store (approval_signing_keys): the
 * private JWK sealed with the secret-sealing helper of webhook secrets (AES-256-GCM under a key
 * derived from RUNIFOLD_WEBHOOK_KEY, or NEXTAUTH_SECRET), the kid as additional data so a sealed
 * value moved to another row does not open. Rotation adds a key; the newest signs and every key
 * stays in the JWKS, so receipts signed before a rotation still verify.
 */

export type SigningKey = { kid: string; privateKey: CryptoKey };

/** The key material that opens sealed signing keys: the same as webhook secrets (web and workers share it). */
export function approvalKeyMaterial(env: Record<string, string | undefined> = process.env): string {
  const material = env.RUNIFOLD_WEBHOOK_KEY || env.NEXTAUTH_SECRET;
  if (!material)
    throw new Error("approval receipts need RUNIFOLD_WEBHOOK_KEY or NEXTAUTH_SECRET (the same value as the web's) to sign");
  return material;
}

const aad = (kid: string) => `approval-signing-key:${kid}`;

/** Adds a new signing key (it signs from now on) and returns its kid. */
export async function rotateApprovalSigningKey(sql: SqlHandle, material: string): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const kid = randomUUID();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  const sealed = sealWebhookSecret(JSON.stringify(await exportJWK(privateKey)), material, aad(kid));
  await sql.unsafe("INSERT INTO approval_signing_keys (kid, public_jwk, private_sealed) VALUES ($1, $2::text::jsonb, $3)", [
    kid,
    JSON.stringify(publicJwk),
    sealed,
  ]);
  return kid;
}

/** The newest key, made on first use. Two workers making the first key at once: both are kept, the newer signs. */
export async function currentSigningKey(sql: SqlHandle, material: string): Promise<SigningKey> {
  const read = () =>
    sql.unsafe<{ kid: string; private_sealed: string }[]>(
      "SELECT kid, private_sealed FROM approval_signing_keys ORDER BY created_at DESC, kid DESC LIMIT 1",
    );
  let [row] = await read();
  if (!row) {
    await rotateApprovalSigningKey(sql, material);
    [row] = await read();
  }
  if (!row) throw new Error("no approval signing key could be made");
  const jwk = JSON.parse(openWebhookSecret(row.private_sealed, material, aad(row.kid))) as JWK;
  return { kid: row.kid, privateKey: (await importJWK(jwk, "ES256")) as CryptoKey };
}

/** GET /.well-known/runifold/approvals-jwks.json: every public key, newest first. */
export async function readApprovalJwks(sql: SqlHandle): Promise<{ keys: JWK[] }> {
  const rows = await sql.unsafe<{ public_jwk: JWK }[]>(
    "SELECT public_jwk FROM approval_signing_keys ORDER BY created_at DESC, kid DESC",
  );
  return { keys: rows.map((row) => row.public_jwk) };
}
