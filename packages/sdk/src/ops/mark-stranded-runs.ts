import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { WORKER_ONLINE_WINDOW_MS } from "./register-worker";

export const STRANDED_MESSAGE_PREFIX = "No online worker serves";

/** The live statuses, as runs_live_status_idx's predicate spells them. */
const LIVE = "('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input')";

/**
 * Says why a run does not move when no online worker serves its version: runs that have been
 * claimable for `afterMs` get a `status_message` ("No online worker serves x@2 …") that MCP
 * clients read as the task's statusMessage and operators see on the task page. The next claim
 * clears it (claim-runs.ts). The distinct versions of live runs are read with a skip scan of
 * runs_live_status_idx (one probe per status and version), so the sweep stays cheap with many
 * parked runs.
 */
export async function markStrandedRuns(sql: SqlHandle, params: { afterMs: number; limit?: number }): Promise<string[]> {
  const rows = await sql.unsafe<{ id: string }[]>(
    `WITH RECURSIVE versions(status, workflow_key) AS (
       SELECT s.status, (SELECT r.workflow_key FROM runs r WHERE r.status = s.status AND r.status IN ${LIVE}
                         ORDER BY r.status, r.workflow_key LIMIT 1)
       FROM unnest(ARRAY['queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input']) AS s(status)
       UNION ALL
       SELECT v.status, (SELECT r.workflow_key FROM runs r
                         WHERE r.status = v.status AND r.status IN ${LIVE} AND r.workflow_key > v.workflow_key
                         ORDER BY r.status, r.workflow_key LIMIT 1)
       FROM versions v WHERE v.workflow_key IS NOT NULL
     ), stranded AS (
       SELECT DISTINCT v.workflow_key FROM versions v
       WHERE v.workflow_key IS NOT NULL AND NOT EXISTS (
         SELECT 1 FROM worker_registrations w
         WHERE w.stopped_at IS NULL AND w.heartbeat_at > now() - make_interval(secs => $3 / 1000.0)
           AND v.workflow_key = ANY(w.workflows))
     ), picked AS (
       SELECT r.id FROM runs r JOIN stranded s ON r.workflow_key = s.workflow_key
       WHERE r.claimable_at <= now() - make_interval(secs => $1 / 1000.0) AND r.status_message IS NULL
         AND r.status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input')
       LIMIT $2
       FOR UPDATE OF r SKIP LOCKED
     ), marked AS (
       UPDATE runs r SET status_message = '${STRANDED_MESSAGE_PREFIX} ' || r.workflow_key || '; the run continues when one does',
              updated_at = now()
       FROM picked WHERE r.id = picked.id
       RETURNING r.id
     )
     SELECT id, pg_notify('${CHANNELS.task}', id::text) FROM marked`,
    [params.afterMs, params.limit ?? 500, WORKER_ONLINE_WINDOW_MS],
  );
  return rows.map((row) => row.id);
}
