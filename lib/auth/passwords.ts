import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Operator password hashes: scrypt (OWASP's memory-hard option available in node:crypto), stored as
 * `scrypt$N$r$p$salt$hash` with base64url salt and hash, so the parameters travel with each hash.
 * N=2^14, r=8, p=5 is one of the OWASP Password Storage Cheat Sheet's equivalent settings: the
 * 16 MiB one, chosen over 2^17/8/1 (128 MiB, more CPU too) because several may run at once on a
 * small host. A hash with other parameters is replaced at the next successful sign-in (needsRehash).
 */
export const SCRYPT_PARAMS = { N: 16_384, r: 8, p: 5 } as const;
const KEY_LENGTH = 32;
/** Longer inputs are refused before any work (sign-in also caps at 200 characters first). */
export const MAX_PASSWORD_LENGTH = 200;

/**
 * At most this many derivations run at once per process: every unauthenticated sign-in costs one,
 * and node's 4-thread pool also serves fs, dns and the rest of crypto for the whole web process.
 */
const MAX_CONCURRENT = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await fn();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return withSlot(
    () =>
      new Promise((resolve, reject) => {
        // maxmem: scrypt needs 128·N·r bytes; the default cap (32 MiB) is too tight for these N.
        scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r + 1_048_576 }, (error, key) =>
          error ? reject(error) : resolve(key),
        );
      }),
  );
}

export async function hashPassword(password: string): Promise<string> {
  if (password.length > MAX_PASSWORD_LENGTH) throw new RangeError(`Passwords are at most ${MAX_PASSWORD_LENGTH} characters`);
  const { N, r, p } = SCRYPT_PARAMS;
  const salt = randomBytes(16);
  const hash = await derive(password, salt, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

function parse(stored: string): { n: number; r: number; p: number; salt: Buffer; hash: Buffer } | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every((value) => Number.isInteger(value) && value > 0) || n > 1_048_576 || r > 32 || p > 16) return undefined;
  const hash = Buffer.from(parts[5] as string, "base64url");
  if (hash.length !== KEY_LENGTH) return undefined;
  return { n, r, p, salt: Buffer.from(parts[4] as string, "base64url"), hash };
}

/** Constant-time check; a malformed stored hash or an over-long password is simply "no match". */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed || password.length > MAX_PASSWORD_LENGTH) return false;
  const actual = await derive(password, parsed.salt, parsed.n, parsed.r, parsed.p);
  return timingSafeEqual(actual, parsed.hash);
}

/** True when `stored` was made with other parameters than today's: rehash it after a successful sign-in. */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.n !== SCRYPT_PARAMS.N || parsed.r !== SCRYPT_PARAMS.r || parsed.p !== SCRYPT_PARAMS.p;
}

/** A hash of a random password, verified against when the email is unknown (same work either way). */
let dummy: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  return dummy;
}
