import type { SqlHandle } from "../client";

/** Seconds until the latest lock among `keys` ends, or 0 when none is locked. */
export async function lockedForSeconds(sql: SqlHandle, keys: string[]): Promise<number> {
  const rows = await sql.unsafe<{ seconds: number | null }[]>(
    "SELECT ceil(extract(epoch FROM max(locked_until) - now()))::int AS seconds FROM login_throttle WHERE key = ANY($1::text[]) AND locked_until > now()",
    [keys],
  );
  return rows[0]?.seconds ?? 0;
}

/**
 * Counts one failure for `key` within a window of `windowMs`; reaching `limit` locks the key for
 * `lockMs` and starts counting afresh. The count is one upsert, so concurrent failures on every web
 * instance are all counted; two of them crossing the limit together both set (about) the same lock.
 */
export async function recordLoginFailure(
  sql: SqlHandle,
  params: { key: string; limit: number; windowMs: number; lockMs: number },
): Promise<void> {
  const rows = await sql.unsafe<{ failures: number }[]>(
    `INSERT INTO login_throttle AS t (key, failures, window_started_at) VALUES ($1, 1, now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN t.window_started_at <= now() - $2 * interval '1 millisecond' THEN 1 ELSE t.failures + 1 END,
       window_started_at = CASE WHEN t.window_started_at <= now() - $2 * interval '1 millisecond' THEN now() ELSE t.window_started_at END
     RETURNING failures`,
    [params.key, params.windowMs],
  );
  if ((rows[0]?.failures ?? 0) < params.limit) return;
  await sql.unsafe(
    "UPDATE login_throttle SET failures = 0, window_started_at = now(), locked_until = now() + $2 * interval '1 millisecond' WHERE key = $1",
    [params.key, params.lockMs],
  );
}

export async function clearLoginFailures(sql: SqlHandle, key: string): Promise<void> {
  await sql.unsafe("DELETE FROM login_throttle WHERE key = $1", [key]);
}
