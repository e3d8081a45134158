import { PREPARED, type SqlHandle } from "@runifold/store";
import type { RunStatus } from "../states";
import { type HistoryUsageColumns, historyUsageColumns } from "./read-history-usage";
import { type RunRow, runColumns } from "./types";

/**
 * Session settings for a pool that sends claims and renewals (runifold-worker's lease pool).
 *
 * One generic plan per statement: left to choose, Postgres planned the claim afresh on every call
 * (0.75 ms of planning for 0.2 ms of execution), and the claim's plan does not depend on its
 * parameters. But a generic plan is made once, from the statistics of the moment — and a worker
 * that starts on a young store (a fresh database, a table never analyzed) made it believing `runs`
 * had a few pages: `picked` then looked its candidates up by a sequential scan of `runs`, kept for
 * the connection's life (measured: 9 ms a claim at 40k runs, growing with the table, until an
 * autoanalyze invalidated the plan). Pricing out the sequential scan alone moved the same mistake
 * into a bitmap: a plan made on an empty table, or on a backlog of a few thousand runs, found
 * `picked`'s candidates by reading every live run (runs_live_status_idx) and joining — 35 ms a claim
 * at 100k queued runs, for a connection's life. Every statement on this pool is a probe of an index
 * for a handful of rows by design (claims, renewals), so whole-table reads and the joins built for
 * them are priced out for it (`off` only makes each the last resort; nothing here needs one): the
 * candidates are then looked up by primary key, 1.7 ms at the same backlog. Sorts are priced out
 * too: the claim's probes are bounded and ordered so that only runs_ready_idx and runs_timer_idx answer
 * them without one (claimRuns). tests/engine/claim-plan.test.ts holds the plan to that.
 *
 * And no JIT: before PostgreSQL 18 a disabled plan node still costs 1e10, so a claim whose plan
 * keeps any (the sorts of a few dozen candidates always stay) is priced past `jit_above_cost` and
 * compiled on every execution — measured on PostgreSQL 15 with LLVM: 489 ms of JIT for a 3 ms claim.
 * Statements of a handful of rows never gain from it (tests/engine/claim-jit.test.ts).
 */
export const LEASE_PLAN_SETTINGS = {
  plan_cache_mode: "force_generic_plan",
  enable_seqscan: "off",
  enable_bitmapscan: "off",
  enable_hashjoin: "off",
  enable_mergejoin: "off",
  enable_sort: "off",
  enable_incremental_sort: "off",
  jit: "off",
} as const;

/**
 * A claimed run, with what it was before the claim: its status (`leased` = an expired lease taken
 * over) and the instant it had become claimable (for the claim-to-start metric).
 */
export type ClaimedRun = RunRow & HistoryUsageColumns & { db_now: Date; claimed_from: RunStatus; claimable_since: Date | null };

/**
 * Where claimable runs are, by the two partial indexes that hold them (migration 0027). A claim
 * reads due work only: entries of runs that are not due yet (a timer set for tomorrow, a lease
 * still held) are in neither index's range it reads, so a tenant that only holds parked runs costs
 * a claim nothing.
 * - READY (runs_ready_idx, tenant first): queued runs — created, woken by a signal or an answer,
 *   released, or a timer that came due and was promoted (promote-due-runs.ts) — and leased runs
 *   whose lease the sweep found expired. Everything in it is due.
 * - TIMERS (runs_timer_idx, version first): parked runs with a time to come back at (a sleep's
 *   wake, a retry's backoff, a wait's timeout), due or not; a claim reads its due end per version.
 * A run set aside for a full concurrency key (queued, claimable_at NULL until a holder of its key
 * ends: migration 0043) is in neither either, so a full key costs a claim nothing and never holds
 * up another key's runs.
 * A leased run is in neither while its lease is held, so renewing a lease changes no indexed
 * column (a HOT update: renew-lease.ts).
 */
export const READY_SQL = "q.claimable_at IS NOT NULL AND q.status IN ('queued', 'leased')";
export const TIMERS_SQL = "q.claimable_at IS NOT NULL AND q.status IN ('sleeping', 'waiting_signal', 'waiting_input')";

/**
 * Claims up to `limit` claimable runs of the served workflow versions in one statement, shared
 * fairly across tenants (M4: one global FIFO let a tenant's backlog starve every other tenant).
 * Its cost follows the work that is due, whatever the number of tenants holding parked runs
 * (review 3, E2: walking every tenant with a live run cost 494 ms a claim at 10,000 tenants with one
 * sleeping run each; tests/engine/claim-scale.test.ts):
 *
 * - `busy` walks the tenants that have ready runs, one step of runs_ready_idx per tenant (a loose
 *   index scan from the high end: the next tenant id below the last; each tenant's low end holds
 *   the dead entries earlier claims left, which a walk from there re-read on every claim).
 * - `ready` takes each enabled busy tenant's first 4×`limit` ready runs (by priority, then age), one ordered index probe
 *   per tenant and served version, bounded by ROW comparisons on (tenant, version, claimable_at) and
 *   ordered the same way, which only runs_ready_idx answers (with plain equalities the planner
 *   chose another index whenever its statistics said few tenants own the runs).
 * - `due` takes the oldest 4×`limit` due timers of each served version from runs_timer_idx's due
 *   end, whatever their tenant: a timer is claimed at its time without any tenant being walked.
 *   Fairness among timers holds within that window; a herd of timers due at once is promoted to
 *   `queued` by the sweep a second later (promote-due-runs.ts), and from then on is shared like any
 *   backlog.
 * - `running` counts leased runs once per tenant that has any candidate, when two or more tenants
 *   have one (with one, the order is its queue's either way) or the tenant has a cap.
 *   Four times, not once: workers woken together see the same candidates, and each must still find
 *   `limit` rows the others have not locked. No row is locked yet, so the window functions never
 *   meet the lock.
 * - Each candidate is ranked by how many runs its tenant would then have leased (`share`: running
 *   now plus its position in the tenant's candidates, highest priority first, then oldest), oldest
 *   first within a share. Priority (WorkflowDefinition.priority, stamped on each run from the
 *   published definition, migration 0043) is a property of a version, so each version's probe stays
 *   in claimable_at order and `ready` keeps each tenant's highest-priority versions in its window; it
 *   orders a tenant's own runs only — across tenants the share decides, so a tenant that marks
 *   everything urgent gets no more than its share. So a claim of
 *   one slot goes to the tenant with the fewest running runs, and a claim of many gives every tenant
 *   its oldest run before anyone gets a second. A tenant's cap — its own `max_concurrent_runs`, or
 *   else `tenantLimit`, the worker's share of the fleet's slots — drops the candidates whose share
 *   would pass it, so one tenant never holds every slot while another's run waits for one to free.
 *   Concurrent claims each count the runs committed before them, so together they may pass a cap by
 *   what they claim at once. The status is left to `picked`'s re-check: a status
 *   filter here makes the planner trade the ordered index scans (they stop after `limit`) for
 *   bitmaps over the whole backlog.
 * - `picked` looks the candidates up by primary key and locks them in rank order with
 *   `FOR UPDATE OF r SKIP LOCKED`, stopping at `limit`: concurrent workers skip each other's rows
 *   instead of waiting, and the claimability is re-checked on the row it locks (a run another worker
 *   claimed and committed since this statement's snapshot no longer matches), so no run is claimed
 *   twice.
 *
 * The lease and the `leased` history event commit together. The claimed run leaves both indexes
 * (`claimable_at` NULL): a lease that expires comes back through the sweep, which marks it ready
 * (promote-due-runs.ts), and the next claim takes it over.
 *
 * `attempt` (the fencing token) goes up on every claim; `lost_attempts` only when the claim takes
 * over an expired lease — an attempt that ended without progress. Resumptions (a queued, sleeping
 * or waiting run) and leases that were still live when Postgres restarted (the outage ended them,
 * not the run) do not count (docs/architecture.md, "Attempts, retries, timeouts"). Runs this
 * process still executes (`exclude`) are never claimed again by it.
 */
export async function claimRuns(
  sql: SqlHandle,
  params: {
    workerId: string;
    workflowKeys: string[];
    limit: number;
    leaseMs: number;
    exclude?: string[];
    /** The cap of a tenant with no `max_concurrent_runs` of its own (the worker's share of the fleet); absent: none. */
    tenantLimit?: number;
  },
): Promise<ClaimedRun[]> {
  if (params.limit <= 0 || params.workflowKeys.length === 0) return [];
  return sql.unsafe<ClaimedRun[]>(
    `WITH RECURSIVE busy(tenant_id) AS (
       (SELECT q.tenant_id FROM runs q WHERE ${READY_SQL}
        ORDER BY q.tenant_id DESC, q.workflow_key DESC, q.claimable_at DESC LIMIT 1)
       UNION ALL
       SELECT (SELECT q.tenant_id FROM runs q
               WHERE ${READY_SQL} AND q.tenant_id < b.tenant_id
               ORDER BY q.tenant_id DESC, q.workflow_key DESC, q.claimable_at DESC LIMIT 1)
       FROM busy b WHERE b.tenant_id IS NOT NULL
     ), ready AS (
       SELECT tn.id AS tenant_id, v.id, v.claimable_at, v.priority, coalesce(tn.max_concurrent_runs, $6::int) AS cap
       FROM busy b
       JOIN tenants tn ON tn.id = b.tenant_id
       CROSS JOIN LATERAL (
         SELECT w.id, w.claimable_at, w.priority
         FROM unnest($1::text[]) AS k(workflow_key)
         CROSS JOIN LATERAL (
           SELECT q.id, q.claimable_at, q.priority FROM runs q
           WHERE (q.tenant_id, q.workflow_key, q.claimable_at) > (b.tenant_id, k.workflow_key, '-infinity'::timestamptz)
             AND (q.tenant_id, q.workflow_key, q.claimable_at) <= (b.tenant_id, k.workflow_key, now())
             AND ${READY_SQL} AND q.id <> ALL($5::uuid[])
           ORDER BY q.tenant_id, q.workflow_key, q.claimable_at
           LIMIT $2 * 4
         ) w
         ORDER BY w.priority DESC, w.claimable_at
         LIMIT $2 * 4
       ) v
       WHERE tn.disabled_at IS NULL
     ), due AS (
       SELECT tn.id AS tenant_id, t.id, t.claimable_at, t.priority, coalesce(tn.max_concurrent_runs, $6::int) AS cap
       FROM unnest($1::text[]) AS k(workflow_key)
       CROSS JOIN LATERAL (
         SELECT q.tenant_id, q.id, q.claimable_at, q.priority FROM runs q
         WHERE q.workflow_key = k.workflow_key AND q.claimable_at <= now() AND ${TIMERS_SQL} AND q.id <> ALL($5::uuid[])
         ORDER BY q.workflow_key, q.claimable_at
         LIMIT $2 * 4
       ) t
       JOIN tenants tn ON tn.id = t.tenant_id
       WHERE tn.disabled_at IS NULL
     ), waiting AS MATERIALIZED (
       SELECT * FROM ready UNION ALL SELECT * FROM due
     ), running AS MATERIALIZED (
       SELECT t.tenant_id, t.cap,
              CASE WHEN t.competing OR t.cap IS NOT NULL THEN
                (SELECT count(*) FROM runs l WHERE l.status = 'leased' AND l.tenant_id = t.tenant_id)
              ELSE 0 END AS n
       FROM (SELECT d.tenant_id, d.cap, count(*) OVER () > 1 AS competing
             FROM (SELECT DISTINCT tenant_id, cap FROM waiting) d) t
     ), candidates AS MATERIALIZED (
       SELECT w.id, w.claimable_at, r.cap,
              r.n + row_number() OVER (PARTITION BY w.tenant_id ORDER BY w.priority DESC, w.claimable_at) AS share
       FROM waiting w JOIN running r ON r.tenant_id = w.tenant_id
     ), picked AS (
       SELECT r.id, r.status AS claimed_from, r.claimable_at AS claimable_since
       FROM (SELECT c.id, c.share, c.claimable_at FROM candidates c
             WHERE c.cap IS NULL OR c.share <= c.cap
             ORDER BY c.share, c.claimable_at) k
       JOIN runs r ON r.id = k.id
       WHERE r.claimable_at IS NOT NULL AND r.claimable_at <= now()
         AND (r.status IN ('queued', 'sleeping', 'waiting_signal', 'waiting_input')
              OR (r.status = 'leased' AND r.lease_expires_at <= now()))
       ORDER BY k.share, k.claimable_at
       LIMIT $2
       FOR UPDATE OF r SKIP LOCKED
     ), claimed AS (
       UPDATE runs r
       SET status = 'leased', lease_owner = $3, attempt = r.attempt + 1,
           lost_attempts = r.lost_attempts + CASE
             WHEN r.status <> 'leased' THEN 0
             WHEN r.lease_expires_at > pg_postmaster_start_time()
              AND r.lease_expires_at - make_interval(secs => $4 / 1000.0) < pg_postmaster_start_time() THEN 0
             ELSE 1 END,
           lease_expires_at = now() + make_interval(secs => $4 / 1000.0),
           claimable_at = NULL,
           wait_detail = NULL, status_message = NULL, updated_at = now()
       FROM picked WHERE r.id = picked.id
       RETURNING ${runColumns("r")}, picked.claimed_from, picked.claimable_since
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'leased', jsonb_build_object('worker', lease_owner, 'attempt', attempt, 'lostAttempts', lost_attempts) FROM claimed
     )
     SELECT claimed.*, now() AS db_now, ${historyUsageColumns("claimed.id", 1)} FROM claimed`,
    [params.workflowKeys, params.limit, params.workerId, params.leaseMs, params.exclude ?? [], params.tenantLimit ?? null],
    PREPARED,
  );
}
