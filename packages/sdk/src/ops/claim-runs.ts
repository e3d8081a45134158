import type { SqlHandle } from "../../../../db/client";
import { PREPARED } from "../../../../db/sql";
import { type RunRow, runColumns } from "./types";

export type ClaimedRun = RunRow & { db_now: Date };

/**
 * Claims up to `limit` claimable runs of the served workflow versions in one statement:
 * `FOR UPDATE SKIP LOCKED` lets concurrent workers take disjoint runs without waiting, the lease
 * and the `leased` history event commit together. Expired leases are claimable too (claimable_at
 * holds the lease expiry), which is how a crashed worker's runs come back within one lease.
 */
export async function claimRuns(
  sql: SqlHandle,
  params: { workerId: string; workflowKeys: string[]; limit: number; leaseMs: number },
): Promise<ClaimedRun[]> {
  if (params.limit <= 0 || params.workflowKeys.length === 0) return [];
  return sql.unsafe<ClaimedRun[]>(
    `WITH picked AS (
       SELECT id FROM runs
       WHERE workflow_key = ANY($1::text[]) AND claimable_at IS NOT NULL AND claimable_at <= now()
       ORDER BY claimable_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE runs r
       SET status = 'leased', lease_owner = $3, attempt = r.attempt + 1,
           lease_expires_at = now() + make_interval(secs => $4 / 1000.0),
           claimable_at = now() + make_interval(secs => $4 / 1000.0),
           wait_detail = NULL, updated_at = now()
       FROM picked WHERE r.id = picked.id
       RETURNING ${runColumns("r")}
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'leased', jsonb_build_object('worker', lease_owner, 'attempt', attempt) FROM claimed
     )
     SELECT claimed.*, now() AS db_now FROM claimed`,
    [params.workflowKeys, params.limit, params.workerId, params.leaseMs],
    PREPARED,
  );
}

/** When the next run of these versions becomes claimable (timers, lease expiries), if any. */
export async function nextClaimableAt(sql: SqlHandle, workflowKeys: string[]): Promise<Date | undefined> {
  if (workflowKeys.length === 0) return undefined;
  const rows = await sql.unsafe<{ at: Date | null }[]>(
    "SELECT min(claimable_at) AS at FROM runs WHERE workflow_key = ANY($1::text[]) AND claimable_at IS NOT NULL",
    [workflowKeys],
    PREPARED,
  );
  return rows[0]?.at ?? undefined;
}
