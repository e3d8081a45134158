import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Why an attempt hands its run back without a penalty (recorded in the `released` history line):
 * - `store unavailable`: a store outage ended the attempt (the worker is alive, the run did nothing
 *   wrong), so the outage does not count as a lost attempt (release-when-store-answers.ts);
 * - `compensation`: the run's failure is recorded but this attempt can no longer run the workflow's
 *   onFailure hook (its signal already fired: an unhandled error in workflow code aborts it); the
 *   next attempt finds the recorded failure and runs the hook (compensation/on-failure.ts).
 */
export type ReleaseReason = "store unavailable" | "compensation";

/**
 * Hands one attempt's run back to the queue at once, without a penalty. Fenced like every leased
 * write: if someone else claimed the run meanwhile, nothing changes. Returns whether the run was released.
 */
export async function releaseRun(sql: SqlHandle, lease: Lease, reason: ReleaseReason): Promise<boolean> {
  const rows = await sql.unsafe(
    `WITH released AS (
       UPDATE runs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, claimable_at = now(), updated_at = now()
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING id, workflow_key
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'released', jsonb_build_object('worker', $2::text, 'reason', $4::text) FROM released
     )
     SELECT pg_notify('${CHANNELS.wake}', workflow_key) FROM released`,
    [lease.runId, lease.workerId, lease.attempt, reason],
  );
  return rows.length === 1;
}
