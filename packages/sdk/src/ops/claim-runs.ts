import type { SqlHandle } from "../../../../db/client";
import { PREPARED } from "../../../../db/sql";
import type { RunStatus } from "../states";
import { type RunRow, runColumns } from "./types";

/**
 * A claimed run, with what it was before the claim: its status (`leased` = an expired lease taken
 * over) and the instant it had become claimable (for the claim-to-start metric).
 */
export type ClaimedRun = RunRow & { db_now: Date; claimed_from: RunStatus; claimable_since: Date | null };

/**
 * Claims up to `limit` claimable runs of the served workflow versions in one statement:
 * `FOR UPDATE SKIP LOCKED` lets concurrent workers take disjoint runs without waiting, the lease
 * and the `leased` history event commit together. Expired leases are claimable too (claimable_at
 * holds the lease expiry), which is how a crashed worker's runs come back within one lease.
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
    `WITH picked AS (
       SELECT id, status AS claimed_from, claimable_at AS claimable_since FROM runs
       WHERE workflow_key = ANY($1::text[]) AND claimable_at IS NOT NULL AND claimable_at <= now()
         AND status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input')
         AND id <> ALL($5::uuid[])
       ORDER BY claimable_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED
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
 * or too late.
 */
export async function msUntilNextClaimable(sql: SqlHandle, workflowKeys: string[]): Promise<number | undefined> {
  if (workflowKeys.length === 0) return undefined;
  const rows = await sql.unsafe<{ ms: number | null }[]>(
    `SELECT (extract(epoch FROM min(claimable_at) - now()) * 1000)::float8 AS ms
     FROM runs WHERE workflow_key = ANY($1::text[]) AND claimable_at IS NOT NULL`,
    [workflowKeys],
    PREPARED,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : ms;
}
