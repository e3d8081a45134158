import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";

/**
 * Graceful shutdown: hands every run this worker still leases back to the queue at once instead of
 * letting its lease run out. Returns the released run ids.
 */
export async function releaseRuns(sql: SqlHandle, workerId: string): Promise<string[]> {
  const rows = await sql.unsafe<{ id: string }[]>(
    `WITH released AS (
       UPDATE runs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, claimable_at = now(), updated_at = now()
       WHERE lease_owner = $1 AND status = 'leased'
       RETURNING id, workflow_key
     ), history AS (
       INSERT INTO run_events (run_id, type, payload) SELECT id, 'released', jsonb_build_object('worker', $1::text) FROM released
     )
     SELECT id, pg_notify('${CHANNELS.wake}', workflow_key) FROM released`,
    [workerId],
  );
  return rows.map((row) => row.id);
}
