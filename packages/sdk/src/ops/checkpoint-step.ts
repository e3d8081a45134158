import type { SqlHandle } from "../../../../db/client";
import { jsonParam, PREPARED } from "../../../../db/sql";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Records a finished step and renews the lease in one statement. The step row is inserted only if
 * this worker still holds the lease, so a late result from a cancelled or reclaimed attempt leaves
 * no trace. Returns false when the lease is gone.
 */
export async function checkpointStep(sql: SqlHandle, lease: Lease, key: string, output: unknown): Promise<boolean> {
  const rows = await sql.unsafe<{ held: boolean }[]>(
    `WITH renewed AS (
       UPDATE runs SET checkpoints = checkpoints + 1, updated_at = now(),
              lease_expires_at = now() + make_interval(secs => $4 / 1000.0),
              claimable_at = now() + make_interval(secs => $4 / 1000.0)
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING id
     ), step AS (
       INSERT INTO run_steps (run_id, key, output) SELECT id, $5, $6::text::jsonb FROM renewed
       ON CONFLICT (run_id, key) DO NOTHING
       RETURNING run_id
     ), history AS (
       INSERT INTO run_events (run_id, type, payload) SELECT run_id, 'step_completed', jsonb_build_object('key', $5::text) FROM step
     )
     SELECT EXISTS (SELECT 1 FROM renewed) AS held`,
    [lease.runId, lease.workerId, lease.attempt, lease.leaseMs, key, jsonParam(output)],
    PREPARED,
  );
  return rows[0]?.held === true;
}
