import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { LEASE_GUARD, type Lease } from "./types";

export type TimerOutcome = "parked" | "due" | "lease_lost";

/**
 * Parks a leased run until its timer is due (a durable timer), in one statement. The wake time is
 * the database's: `now() + ms` the first time, the recorded `wakeAt` on a replay — so a worker's
 * clock never decides when a timer fires. The timer is stored as the step `sleep:<key>` so a replay
 * after waking knows the sleep is over. A timer that is already due parks nothing ("due").
 */
export async function suspendForTimer(
  sql: SqlHandle,
  lease: Lease,
  timer: { key: string; ms: number; recordedWakeAt?: string; seq: number | null },
): Promise<TimerOutcome> {
  const rows = await sql.unsafe<{ held: boolean; parked: boolean }[]>(
    `WITH wake AS (
       SELECT coalesce($5::timestamptz, now() + make_interval(secs => $6 / 1000.0)) AS at
     ), parked AS (
       UPDATE runs SET status = 'sleeping', claimable_at = (SELECT at FROM wake), lease_owner = NULL, lease_expires_at = NULL,
              checkpoints = checkpoints + 1, lost_attempts = 0, updated_at = now(),
              wait_detail = jsonb_build_object('timer', jsonb_build_object('key', $4::text, 'wakeAt', (SELECT at FROM wake)))
       WHERE id = $1 AND ${LEASE_GUARD} AND (SELECT at FROM wake) > now()
       RETURNING id
     ), recorded AS (
       INSERT INTO run_steps (run_id, key, output, seq)
       SELECT id, 'sleep:' || $4, jsonb_build_object('wakeAt', (SELECT at FROM wake)), $7 FROM parked
       ON CONFLICT (run_id, key) DO NOTHING
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'timer_set', jsonb_build_object('key', $4::text, 'wakeAt', (SELECT at FROM wake)) FROM parked
     ), notified AS (
       SELECT pg_notify('${CHANNELS.task}', id::text) FROM parked
     )
     SELECT EXISTS (SELECT 1 FROM runs WHERE id = $1 AND ${LEASE_GUARD}) AS held,
            (SELECT count(*) FROM notified) > 0 AS parked`,
    [lease.runId, lease.workerId, lease.attempt, timer.key, timer.recordedWakeAt ?? null, timer.ms, timer.seq],
  );
  const row = rows[0];
  if (!row?.held) return "lease_lost";
  return row.parked ? "parked" : "due";
}
