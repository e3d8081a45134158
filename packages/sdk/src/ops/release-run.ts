import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Hands one attempt's run back to the queue at once, without a penalty: used after a store outage
 * ended the attempt (the worker is alive, the run did nothing wrong), so the outage does not count
 * as a lost attempt. Fenced like every leased write: if someone else claimed the run meanwhile,
 * nothing changes. Returns whether the run was released.
 */
export async function releaseRun(sql: SqlHandle, lease: Lease): Promise<boolean> {
  const rows = await sql.unsafe(
    `WITH released AS (
       UPDATE runs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, claimable_at = now(), updated_at = now()
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING id, workflow_key
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'released', jsonb_build_object('worker', $2::text, 'reason', 'store unavailable') FROM released
     )
     SELECT pg_notify('${CHANNELS.wake}', workflow_key) FROM released`,
    [lease.runId, lease.workerId, lease.attempt],
  );
  return rows.length === 1;
}
