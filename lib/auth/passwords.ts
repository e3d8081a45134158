import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Operator password hashes: scrypt (OWASP's memory-hard option available in node:crypto), stored as
 * `scrypt$N$r$p$salt$hash` with base64url salt and hash, so the parameters travel with each hash
 * and can be raised later without invalidating existing ones.
 */
const N = 16_384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: scrypt needs 128·N·r bytes; the default cap (32 MiB) is too tight for larger N.
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r + 1_048_576 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Constant-time check; a malformed stored hash is simply "no match". */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every((value) => Number.isInteger(value) && value > 0) || n > 1_048_576) return false;
  const expected = Buffer.from(parts[5] as string, "base64url");
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, Buffer.from(parts[4] as string, "base64url"), n, r, p);
  return timingSafeEqual(actual, expected);
}

/** A hash of a random password, verified against when the email is unknown (same work either way). */
let dummy: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  return dummy;
}
