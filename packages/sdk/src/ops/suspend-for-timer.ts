import type { SqlHandle } from "../../../../db/client";
import { CHANNELS } from "../channels";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Parks a leased run until `wakeAt` (a durable timer). The timer is stored as the step
 * `sleep:<key>` so a replay after waking knows the sleep is over. Returns false if the lease is gone.
 */
export async function suspendForTimer(sql: SqlHandle, lease: Lease, key: string, wakeAt: Date): Promise<boolean> {
  const rows = await sql.unsafe(
    `WITH parked AS (
       UPDATE runs SET status = 'sleeping', claimable_at = $5, lease_owner = NULL, lease_expires_at = NULL,
              checkpoints = checkpoints + 1, updated_at = now(),
              wait_detail = jsonb_build_object('timer', jsonb_build_object('key', $4::text, 'wakeAt', $5::timestamptz))
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING id
     ), timer AS (
       INSERT INTO run_steps (run_id, key, output)
       SELECT id, 'sleep:' || $4, jsonb_build_object('wakeAt', $5::timestamptz) FROM parked
       ON CONFLICT (run_id, key) DO NOTHING
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'timer_set', jsonb_build_object('key', $4::text, 'wakeAt', $5::timestamptz) FROM parked
     )
     SELECT pg_notify('${CHANNELS.task}', id::text) FROM parked`,
    [lease.runId, lease.workerId, lease.attempt, key, wakeAt],
  );
  return rows.length === 1;
}
