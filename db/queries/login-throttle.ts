import type { SqlHandle } from "@runifold/store";

/** How one throttle key counts attempts: `limit` per `windowMs`, then a lock doubling from `baseLockMs` up to `maxLockMs`. */
export type ThrottlePolicy = { limit: number; windowMs: number; baseLockMs: number; maxLockMs: number };

export type Reservation = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one attempt for `key` BEFORE its password is checked, in one upsert: the row lock
 * serialises concurrent attempts on every web instance, so each gets its own number and at most
 * `limit` of a burst are evaluated (no check-then-act race). The attempt that reaches the limit
 * starts a lock of `baseLockMs · 2^lock_count` (capped); a success clears the key (clearKeys).
 */
export async function reserveLoginAttempt(sql: SqlHandle, key: string, policy: ThrottlePolicy): Promise<Reservation> {
  const rows = await sql.unsafe<{ failures: number; locked_for_ms: number | null }[]>(
    `INSERT INTO login_throttle AS t (key, failures, window_started_at, updated_at) VALUES ($1, 1, now(), now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN t.locked_until > now() THEN t.failures
                       WHEN t.window_started_at <= now() - $2 * interval '1 millisecond' THEN 1
                       ELSE t.failures + 1 END,
       window_started_at = CASE WHEN t.locked_until > now() THEN t.window_started_at
                                WHEN t.window_started_at <= now() - $2 * interval '1 millisecond' THEN now()
                                ELSE t.window_started_at END,
       updated_at = now()
     RETURNING failures, CASE WHEN locked_until > now() THEN extract(epoch FROM locked_until - now()) * 1000 END::float8 AS locked_for_ms`,
    [key, policy.windowMs],
  );
  const row = rows[0];
  if (!row) return { allowed: true };
  if (row.locked_for_ms !== null) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(row.locked_for_ms / 1000)) };
  if (row.failures < policy.limit) return { allowed: true };
  // The limit-th attempt is still evaluated and starts the lock; racing attempts past it are refused.
  const locked = await sql.unsafe<{ lock_ms: number }[]>(
    `UPDATE login_throttle SET
       locked_until = now() + least($3::float8, $2::float8 * power(2, lock_count)) * interval '1 millisecond',
       lock_count = lock_count + 1, failures = 0, window_started_at = now(), updated_at = now()
     WHERE key = $1 AND (locked_until IS NULL OR locked_until <= now())
     RETURNING least($3::float8, $2::float8 * power(2, lock_count - 1)) AS lock_ms`,
    [key, policy.baseLockMs, policy.maxLockMs],
  );
  if (row.failures === policy.limit) return { allowed: true };
  const ms = locked[0]?.lock_ms ?? policy.baseLockMs;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) };
}

/**
 * Counts one attempt on a key that slows down instead of locking (an account): the number of
 * attempts in the current window, this one included, in one upsert (the row lock serialises
 * concurrent attempts). Nothing is ever refused here; the caller turns the count into a delay.
 */
export async function countLoginAttempt(sql: SqlHandle, key: string, windowMs: number): Promise<number> {
  const rows = await sql.unsafe<{ failures: number }[]>(
    `INSERT INTO login_throttle AS t (key, failures, window_started_at, updated_at) VALUES ($1, 1, now(), now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN t.window_started_at <= now() - $2 * interval '1 millisecond' THEN 1 ELSE t.failures + 1 END,
       window_started_at = CASE WHEN t.window_started_at <= now() - $2 * interval '1 millisecond' THEN now()
                                ELSE t.window_started_at END,
       updated_at = now()
     RETURNING failures`,
    [key, windowMs],
  );
  return rows[0]?.failures ?? 1;
}

/** A success: these keys start afresh (their backoff too — the right person proved who they are). */
export async function clearLoginKeys(sql: SqlHandle, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await sql.unsafe("DELETE FROM login_throttle WHERE key = ANY($1::text[])", [keys]);
}

/** A success from a shared key (a client address): its reserved attempt is given back. */
export async function refundLoginAttempt(sql: SqlHandle, key: string): Promise<void> {
  await sql.unsafe("UPDATE login_throttle SET failures = greatest(failures - 1, 0) WHERE key = $1", [key]);
}

/** Keeps the table bounded: rows untouched for `idleMs` whose lock is over go. Returns how many. */
export async function purgeLoginThrottle(sql: SqlHandle, idleMs: number): Promise<number> {
  const rows = await sql.unsafe(
    `DELETE FROM login_throttle WHERE updated_at < now() - $1 * interval '1 millisecond'
       AND (locked_until IS NULL OR locked_until < now()) RETURNING 1`,
    [idleMs],
  );
  return rows.length;
}

export async function countLoginThrottleRows(sql: SqlHandle): Promise<number> {
  const rows = await sql.unsafe<{ n: number }[]>("SELECT count(*)::int AS n FROM login_throttle");
  return rows[0]?.n ?? 0;
}
