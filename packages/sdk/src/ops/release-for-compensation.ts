import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Hands a run back at once, without a penalty, when its failure is recorded but this attempt can no
 * longer run the workflow's onFailure hook (its signal already fired: an unhandled error in workflow
 * code aborts it). The next attempt finds the recorded failure and runs the hook (compensation/on-failure.ts).
 * Fenced like every leased write; answers whether the run was released.
 */
export async function releaseForCompensation(sql: SqlHandle, lease: Lease): Promise<boolean> {
  const rows = await sql.unsafe(
    `WITH released AS (
       UPDATE runs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, claimable_at = now(), updated_at = now()
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING id, workflow_key
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'released', jsonb_build_object('worker', $2::text, 'reason', 'compensation') FROM released
     )
     SELECT pg_notify('${CHANNELS.wake}', workflow_key) FROM released`,
    [lease.runId, lease.workerId, lease.attempt],
  );
  return rows.length === 1;
}
