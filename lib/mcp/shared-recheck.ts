import { createHash } from "node:crypto";

/** How long one credential check answers for every stream of that credential in this process. */
export const SHARED_RECHECK_MS = 1_000;

type Check<T> = { startedAt: number; result: Promise<T> };
const checks = new Map<string, Check<unknown>>();
/** Past this many credentials, entries older than the window are dropped (each is a few dozen bytes). */
const PRUNE_ABOVE = 10_000;

/**
 * The re-check a long-lived stream runs every round (listen, tasks/result, the legacy streams),
 * shared by every stream of the same credential in this process: 5,000 listen streams of 50 keys
 * re-checked 2,500 credentials a second, one key lookup each; shared, 50 keys make at most 50
 * lookups a second. A check answers for SHARED_RECHECK_MS after it *started*, so a revoked or
 * downgraded credential still ends each of its streams within that stream's own round plus one
 * second. A failed check is never shared. Keyed by the credential's SHA-256, computed only when a
 * stream first re-checks (an ordinary request never does), so no credential is kept in the clear.
 */
export function sharedRecheck<T>(token: string, verify: (token: string) => Promise<T>): () => Promise<T> {
  let digest: string | undefined;
  return () => {
    digest ??= createHash("sha256").update(token).digest("base64url");
    const key = digest;
    const now = performance.now();
    const kept = checks.get(key) as Check<T> | undefined;
    if (kept && now - kept.startedAt < SHARED_RECHECK_MS) return kept.result;
    const check: Check<T> = { startedAt: now, result: verify(token) };
    checks.set(key, check);
    check.result.catch(() => {
      if (checks.get(key) === check) checks.delete(key);
    });
    if (checks.size > PRUNE_ABOVE)
      for (const [other, entry] of checks) if (now - entry.startedAt >= SHARED_RECHECK_MS) checks.delete(other);
    return check.result;
  };
}
