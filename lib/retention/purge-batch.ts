import { TERMINAL_STATUSES_SQL } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type postgres from "postgres";

/**
 * A consumed requestState nonce is kept this long past its expiry before it is purged: the app
 * checks expiry with its own clock, the purge with the database's, and a nonce deleted while some
 * instance still accepts the state would allow a replay.
 */
export const NONCE_GRACE_MS = 10 * 60_000;

/**
 * Terminal runs whose tenant retention has elapsed at the instant in parameter `nowParam` (null:
 * the database's now()). The first cutoff, the shortest retention of any tenant, is the sargable
 * bound that lets runs_finished_idx stop the ordered scan; the per-tenant one is the real policy.
 */
const eligible = (nowParam: string) => `
  FROM runs r JOIN tenants t ON t.id = r.tenant_id
  WHERE r.finished_at IS NOT NULL
    AND r.finished_at < coalesce(${nowParam}::timestamptz, now()) - (SELECT min(retention_ms) FROM tenants) * interval '1 millisecond'
    AND r.finished_at < coalesce(${nowParam}::timestamptz, now()) - t.retention_ms * interval '1 millisecond'
    AND r.status IN ${TERMINAL_STATUSES_SQL}`;

/**
 * One batch as one statement. Rows are picked FOR UPDATE SKIP LOCKED, so a run someone else is
 * touching is left for the next pass instead of making anyone wait. The DELETE repeats the
 * terminal check (a belt to the picker's braces: an active run is never deleted, whatever the
 * picker matched). Tombstones are built from the deleted rows; their digest subquery still sees
 * the terminal event because every sub-statement of a WITH runs on the same snapshot.
 */
const PURGE_SQL = `
  WITH picked AS (
    SELECT r.id ${eligible("$2")}
    ORDER BY r.finished_at
    LIMIT $1
    FOR UPDATE OF r SKIP LOCKED
  ), gone AS (
    DELETE FROM runs r USING picked p
    WHERE r.id = p.id AND r.status IN ${TERMINAL_STATUSES_SQL}
    RETURNING r.id, r.tenant_id, r.route_id, r.workflow_key, r.status, r.created_at, r.finished_at
  ), tombs AS (
    INSERT INTO tombstones (run_id, tenant_id, route_id, workflow_key, final_status, created_at, finished_at,
                            purged_at, result_digest, purge_epoch)
    SELECT g.id, g.tenant_id, g.route_id, g.workflow_key, g.status, g.created_at, g.finished_at, now(),
           (SELECT encode(sha256(convert_to(e.payload::text, 'UTF8')), 'hex') FROM run_events e
            WHERE e.run_id = g.id AND e.type = g.status ORDER BY e.id DESC LIMIT 1),
           $3
    FROM gone g
    RETURNING run_id
  ), events AS (
    DELETE FROM run_events WHERE run_id IN (SELECT id FROM gone) RETURNING 1
  ), steps AS (
    DELETE FROM run_steps WHERE run_id IN (SELECT id FROM gone) RETURNING 1
  ), inputs AS (
    DELETE FROM run_inputs WHERE run_id IN (SELECT id FROM gone) RETURNING 1
  ), signals AS (
    DELETE FROM run_signals WHERE run_id IN (SELECT id FROM gone) RETURNING 1
  )
  SELECT (SELECT count(*) FROM tombs)::int AS purged, (SELECT count(*) FROM events)::int AS events`;

const NONCE_SQL = `
  DELETE FROM consumed_request_states WHERE nonce IN (
    SELECT nonce FROM consumed_request_states
    WHERE expires_at < coalesce($2::timestamptz, now()) - $3 * interval '1 millisecond'
    ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
  )`;

export type BatchOutcome = { fenced: true } | { fenced: false; purged: number; events: number; nonces: number };

/**
 * Runs `fn` in one transaction that first proves `epoch` is still the current fencing token.
 * FOR SHARE holds the fence row until commit: a new cleaner's bump waits for this batch, and a
 * batch that starts after the bump sees the new epoch and deletes nothing.
 */
async function fenced<T>(
  sql: postgres.Sql,
  epoch: number,
  fn: (tx: SqlHandle) => Promise<T>,
): Promise<{ fenced: true } | { fenced: false; value: T }> {
  return (await sql.begin(async (tx) => {
    // Bounded waits: a batch that cannot get its locks quickly gives up rather than queue others.
    await tx.unsafe("SELECT set_config('lock_timeout', '5s', true)");
    const rows = await tx.unsafe<{ epoch: number }[]>(
      "SELECT epoch::float8 AS epoch FROM retention_fence WHERE id = 1 FOR SHARE",
    );
    if (rows[0]?.epoch !== epoch) return { fenced: true as const };
    // The run_events trigger lets a DELETE through only with this flag, scoped to this transaction.
    await tx.unsafe("SELECT set_config('runifold.purge', 'on', true)");
    return { fenced: false as const, value: await fn(tx) };
  })) as { fenced: true } | { fenced: false; value: T };
}

/** Purges up to `batchSize` eligible runs (and expired nonces) in one short fenced transaction. */
export async function purgeBatch(
  sql: postgres.Sql,
  params: { epoch: number; batchSize: number; now?: Date },
): Promise<BatchOutcome> {
  const now = params.now ?? null;
  const outcome = await fenced(sql, params.epoch, async (tx) => {
    const runs = await tx.unsafe<{ purged: number; events: number }[]>(PURGE_SQL, [params.batchSize, now, params.epoch]);
    const nonces = await tx.unsafe(NONCE_SQL, [params.batchSize, now, NONCE_GRACE_MS]);
    return { purged: runs[0]?.purged ?? 0, events: runs[0]?.events ?? 0, nonces: nonces.count };
  });
  return outcome.fenced ? outcome : { fenced: false, ...outcome.value };
}

/** What a purge would remove now, without removing it (dry runs, the UI's "awaiting purge"). */
export async function countPurgeable(sql: SqlHandle, params: { now?: Date } = {}): Promise<{ runs: number; nonces: number }> {
  const rows = await sql.unsafe<{ runs: number; nonces: number }[]>(
    `SELECT (SELECT count(*) ${eligible("$1")})::int AS runs,
            (SELECT count(*) FROM consumed_request_states
             WHERE expires_at < coalesce($1::timestamptz, now()) - $2 * interval '1 millisecond')::int AS nonces`,
    [params.now ?? null, NONCE_GRACE_MS],
  );
  return { runs: rows[0]?.runs ?? 0, nonces: rows[0]?.nonces ?? 0 };
}
