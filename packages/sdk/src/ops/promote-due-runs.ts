import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { TIMERS_SQL } from "./claim-runs";

/**
 * Expired leases become claimable: a leased run is in no claim index while its lease is held (so a
 * renewal is a HOT update, renew-lease.ts), so nothing else would find the run of a worker that
 * crashed. This marks such runs ready (`claimable_at` = the expiry they passed) and wakes the
 * workers of their versions; the next claim takes the lease over and counts the lost attempt
 * (claim-runs.ts). It reads the leased runs only (runs_tenant_leased_idx: bounded by the fleet's
 * slots), and every worker runs it each sweep (SKIP LOCKED keeps them apart). A worker that renews
 * after this moved the row takes it back out of the index (renew-lease.ts sets `claimable_at` NULL).
 */
export async function markExpiredLeases(sql: SqlHandle, limit = 500): Promise<number> {
  const rows = await sql.unsafe<{ n: number }[]>(
    `WITH expired AS (
       SELECT id FROM runs
       WHERE status = 'leased' AND claimable_at IS NULL AND lease_expires_at <= now()
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), marked AS (
       UPDATE runs r SET claimable_at = r.lease_expires_at
       FROM expired WHERE r.id = expired.id
       RETURNING r.workflow_key
     ), woken AS (
       SELECT pg_notify('${CHANNELS.wake}', workflow_key) FROM marked GROUP BY workflow_key
     )
     SELECT (SELECT count(*) FROM marked)::int AS n, (SELECT count(*) FROM woken)::int AS versions`,
    [limit],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Timers of these versions that came due more than `afterMs` ago and are still parked become
 * `queued`. A claim takes due timers straight from runs_timer_idx, oldest first within a window
 * (claim-runs.ts), which is fair only inside that window: when one tenant's thousands of timers come
 * due at once, another tenant's timer due a moment later waits behind all of them. Once queued they
 * are shared across tenants like any backlog. Only timers a claim did not take within `afterMs`
 * move (a herd, or every slot busy), so an ordinary timer is claimed straight from its index and
 * never written twice. The run's history is unchanged: it resumes as it would have.
 */
export async function promoteDueTimers(
  sql: SqlHandle,
  params: { workflowKeys: string[]; afterMs: number; limit?: number },
): Promise<number> {
  if (params.workflowKeys.length === 0) return 0;
  const rows = await sql.unsafe<{ n: number }[]>(
    `WITH stale AS (
       SELECT t.id FROM unnest($1::text[]) AS k(workflow_key)
       CROSS JOIN LATERAL (
         SELECT q.id FROM runs q
         WHERE q.workflow_key = k.workflow_key AND q.claimable_at <= now() - make_interval(secs => $2 / 1000.0) AND ${TIMERS_SQL}
         ORDER BY q.workflow_key, q.claimable_at
         LIMIT $3
       ) t
     ), locked AS (
       SELECT r.id FROM runs r JOIN stale s ON r.id = s.id
       WHERE r.status IN ('sleeping', 'waiting_signal', 'waiting_input') AND r.claimable_at <= now()
       FOR UPDATE OF r SKIP LOCKED
     ), promoted AS (
       UPDATE runs r SET status = 'queued', wait_detail = NULL, updated_at = now()
       FROM locked WHERE r.id = locked.id
       RETURNING r.workflow_key
     ), woken AS (
       SELECT pg_notify('${CHANNELS.wake}', workflow_key) FROM promoted GROUP BY workflow_key
     )
     SELECT (SELECT count(*) FROM promoted)::int AS n, (SELECT count(*) FROM woken)::int AS versions`,
    [params.workflowKeys, params.afterMs, params.limit ?? 1_000],
  );
  return rows[0]?.n ?? 0;
}
