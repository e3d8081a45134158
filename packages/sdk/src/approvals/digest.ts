import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/**
 * The digests an approval and its receipt carry: base64url SHA-256 of the value's RFC 8785
 * canonical JSON (JCS), so anyone can recompute one from the arguments, details or policy in any
 * JSON library that canonicalizes — key order and number spelling do not change it.
 */
export function canonicalDigest(value: unknown): string {
  const text = canonicalize(value ?? null);
  if (text === undefined) throw new Error("the value has no canonical JSON form");
  return createHash("sha256").update(text, "utf8").digest("base64url");
}
