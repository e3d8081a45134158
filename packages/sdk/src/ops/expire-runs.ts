import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";

/**
 * Ends runs whose own timeout (`runs.deadline_at`) has passed while no worker holds them — parked,
 * queued, or leased by a worker whose lease expired — as `failed` with cause `run_timeout`. This is
 * what bounds a stranded run too: it ends even if no worker serves its version any more. Every
 * worker runs it (SKIP LOCKED keeps them apart; the status guard makes it idempotent), and a run
 * that is leased live is left to its executor, which enforces the deadline itself.
 */
export async function expireRuns(sql: SqlHandle, limit = 200): Promise<string[]> {
  const rows = await sql.unsafe<{ id: string }[]>(
    `WITH expired AS (
       SELECT id FROM runs
       WHERE deadline_at <= now() AND finished_at IS NULL
         AND (status IN ('queued', 'sleeping', 'waiting_signal', 'waiting_input') OR (status = 'leased' AND lease_expires_at <= now()))
       ORDER BY deadline_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), failed AS (
       UPDATE runs r SET status = 'failed', claimable_at = NULL, lease_owner = NULL, lease_expires_at = NULL, wait_detail = NULL,
              status_message = 'Workflow ' || r.workflow_key || ' timed out',
              failure = jsonb_build_object('code', 'run_timeout', 'attempt', r.attempt,
                'message', 'the run passed its timeout (' || round(extract(epoch FROM r.deadline_at - r.created_at) * 1000)
                           || ' ms) while ' || r.status),
              finished_at = now(), updated_at = now()
       FROM expired WHERE r.id = expired.id
       RETURNING r.id, r.workflow_key, r.attempt
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'failed', jsonb_build_object('error', jsonb_build_object(
         'code', -32603, 'message', 'Workflow ' || workflow_key || ' timed out',
         'data', jsonb_build_object('cause', jsonb_build_object('code', 'run_timeout', 'attempt', attempt))))
       FROM failed
     )
     SELECT id, pg_notify('${CHANNELS.task}', id::text) FROM failed`,
    [limit],
  );
  return rows.map((row) => row.id);
}
