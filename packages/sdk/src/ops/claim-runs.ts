import { PREPARED, type SqlHandle } from "@runifold/store";
import type { RunStatus } from "../states";
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
 * too: the claim's probes are bounded and ordered so that only runs_tenant_key_claim_idx answers
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
export type ClaimedRun = RunRow & { db_now: Date; claimed_from: RunStatus; claimable_since: Date | null };

/**
 * Claims up to `limit` claimable runs of the served workflow versions in one statement, shared
 * fairly across tenants (M4: one global FIFO let a tenant's backlog starve every other tenant):
 *
 * - `busy` walks the tenants that have claimable entries at all, one step of
 *   runs_tenant_key_claim_idx per tenant (a loose index scan from the high end: the next tenant id
 *   below the last; each tenant's low end holds the dead entries earlier claims left, which a walk
 *   from there re-read on every claim), so a store with thousands of idle tenants costs a claim
 *   nothing more; walking every row of `tenants` instead cost 0.7 s a claim with 1,000 tenants
 *   and 2.8 s with 10,000.
 * - `waiting` keeps the enabled ones (a disabled tenant's runs stay queued until it is enabled
 *   again) and takes each one's oldest 4×`limit` claimable runs, one ordered index probe per tenant
 *   and served version. The probe is bounded by ROW comparisons on (tenant, version, claimable_at)
 *   and ordered the same way, which only runs_tenant_key_claim_idx answers: with plain equalities
 *   the planner chose runs_claim_idx and filtered by tenant whenever its statistics said few
 *   tenants own the runs, reading the whole backlog once per tenant. No row is locked yet, so the
 *   window functions never meet the lock. `running` counts leased runs once per tenant that has any
 *   waiting, and only when two or more tenants have: with one, the order is its queue's either
 *   way, and the count is the claim's dearest part (runs_tenant_leased_idx, bounded the same way;
 *   it keeps an entry for every lease taken since the last vacuum: 2–23 ms a claim under a
 *   one-tenant burst).
 *   Four times, not once: workers woken together see the same candidates, and each must still find
 *   `limit` rows the others have not locked.
 * - Each candidate (`candidates`) is ranked by how many runs its tenant would then have leased
 *   (`share`: running now, from the small runs_tenant_leased_idx, plus its position in the tenant's queue), oldest
 *   first within a share. So a claim of one slot goes to the tenant with the fewest running runs,
 *   and a claim of many gives every tenant its oldest run before anyone gets a second. The status
 *   is left to `picked`'s re-check: a status filter here makes the planner trade the ordered index
 *   scan (stops after `limit`) for a bitmap over the tenant's whole backlog.
 * - `picked` looks the candidates up by primary key and locks them in rank order with
 *   `FOR UPDATE OF r SKIP LOCKED`, stopping at `limit`: concurrent workers skip each other's rows instead of waiting, and the claimability is
 *   re-checked on the row it locks (a run another worker claimed and committed since this
 *   statement's snapshot no longer matches), so no run is claimed twice. Measured on 10k queued runs
 *   of one tenant and 19 small tenants: about 1 ms, index scans only.
 *
 * The lease and the `leased` history event commit together. Expired leases are claimable too
 * (claimable_at holds the lease expiry), which is how a crashed worker's runs come back within one
 * lease.
 *
 * `attempt` (the fencing token) goes up on every claim; `lost_attempts` only when the claim takes
 * over an expired lease — an attempt that ended without progress. Resumptions (a queued, sleeping
 * or waiting run) and leases that were still live when Postgres restarted (the outage ended them,
 * not the run) do not count (docs/architecture.md, "Attempts, retries, timeouts"). Runs this
 * process still executes (`exclude`) are never claimed again by it.
 */
export async function claimRuns(
  sql: SqlHandle,
  params: { workerId: string; workflowKeys: string[]; limit: number; leaseMs: number; exclude?: string[] },
): Promise<ClaimedRun[]> {
  if (params.limit <= 0 || params.workflowKeys.length === 0) return [];
  return sql.unsafe<ClaimedRun[]>(
    `WITH RECURSIVE busy(tenant_id) AS (
       (SELECT q.tenant_id FROM runs q WHERE q.claimable_at IS NOT NULL
        ORDER BY q.tenant_id DESC, q.workflow_key DESC, q.claimable_at DESC LIMIT 1)
       UNION ALL
       SELECT (SELECT q.tenant_id FROM runs q
               WHERE q.claimable_at IS NOT NULL AND q.tenant_id < b.tenant_id
               ORDER BY q.tenant_id DESC, q.workflow_key DESC, q.claimable_at DESC LIMIT 1)
       FROM busy b WHERE b.tenant_id IS NOT NULL
     ), waiting AS MATERIALIZED (
       SELECT tn.id AS tenant_id, v.id, v.claimable_at
       FROM busy b
       JOIN tenants tn ON tn.id = b.tenant_id
       CROSS JOIN LATERAL (
         SELECT w.id, w.claimable_at
         FROM unnest($1::text[]) AS k(workflow_key)
         CROSS JOIN LATERAL (
           SELECT q.id, q.claimable_at FROM runs q
           WHERE (q.tenant_id, q.workflow_key, q.claimable_at) > (b.tenant_id, k.workflow_key, '-infinity'::timestamptz)
             AND (q.tenant_id, q.workflow_key, q.claimable_at) <= (b.tenant_id, k.workflow_key, now())
             AND q.claimable_at IS NOT NULL AND q.id <> ALL($5::uuid[])
           ORDER BY q.tenant_id, q.workflow_key, q.claimable_at
           LIMIT $2 * 4
         ) w
         ORDER BY w.claimable_at
         LIMIT $2 * 4
       ) v
       WHERE tn.disabled_at IS NULL
     ), running AS MATERIALIZED (
       SELECT t.tenant_id,
              CASE WHEN t.competing THEN
                (SELECT count(*) FROM (
                   SELECT FROM runs l
                   WHERE l.status = 'leased'
                     AND (l.tenant_id, l.lease_expires_at) > (t.tenant_id, now())
                     AND (l.tenant_id, l.lease_expires_at) < (t.tenant_id, 'infinity'::timestamptz)
                   ORDER BY l.tenant_id, l.lease_expires_at) leases)
              ELSE 0 END AS n
       FROM (SELECT d.tenant_id, count(*) OVER () > 1 AS competing FROM (SELECT DISTINCT tenant_id FROM waiting) d) t
     ), candidates AS MATERIALIZED (
       SELECT w.id, w.claimable_at,
              r.n + row_number() OVER (PARTITION BY w.tenant_id ORDER BY w.claimable_at) AS share
       FROM waiting w JOIN running r ON r.tenant_id = w.tenant_id
     ), picked AS (
       SELECT r.id, r.status AS claimed_from, r.claimable_at AS claimable_since
       FROM candidates k JOIN runs r ON r.id = k.id
       WHERE r.claimable_at IS NOT NULL AND r.claimable_at <= now()
         AND r.status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input')
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
           claimable_at = now() + make_interval(secs => $4 / 1000.0),
           wait_detail = NULL, status_message = NULL, updated_at = now()
       FROM picked WHERE r.id = picked.id
       RETURNING ${runColumns("r")}, picked.claimed_from, picked.claimable_since
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'leased', jsonb_build_object('worker', lease_owner, 'attempt', attempt, 'lostAttempts', lost_attempts) FROM claimed
     )
     SELECT claimed.*, now() AS db_now FROM claimed`,
    [params.workflowKeys, params.limit, params.workerId, params.leaseMs, params.exclude ?? []],
    PREPARED,
  );
}

/**
 * How long until the next run of these versions becomes claimable (timers, lease expiries), if
 * any — measured by the database's clock, so a skewed worker clock never arms a timer too early
 * or too late. One probe of runs_claim_idx (workflow_key, claimable_at) per served version, each
 * reading from the low end and stopping at its first row (a `min()` over `workflow_key = ANY(…)`
 * aggregated every leased and queued entry of every version instead: 1.2 ms a call under load).
 */
export async function msUntilNextClaimable(sql: SqlHandle, workflowKeys: string[]): Promise<number | undefined> {
  if (workflowKeys.length === 0) return undefined;
  const rows = await sql.unsafe<{ ms: number | null }[]>(
    `SELECT (extract(epoch FROM min(n.claimable_at) - now()) * 1000)::float8 AS ms
     FROM unnest($1::text[]) AS k(workflow_key)
     CROSS JOIN LATERAL (
       SELECT r.claimable_at FROM runs r
       WHERE r.workflow_key = k.workflow_key AND r.claimable_at IS NOT NULL
       ORDER BY r.claimable_at LIMIT 1
     ) n`,
    [workflowKeys],
    PREPARED,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : ms;
}
