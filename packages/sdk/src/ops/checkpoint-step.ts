import type { SqlHandle } from "../../../../db/client";
import { PREPARED } from "../../../../db/sql";
import { LEASE_GUARD, type Lease, RENEW_AND_PROGRESS } from "./types";

/**
 * Records a finished step and renews the lease in one statement. The step row is inserted only if
 * this worker still holds the lease, so a late result from a cancelled or reclaimed attempt leaves
 * no trace. `outputJson` was encoded (and size-checked) by the caller before any SQL ran
 * (json-value.ts); `seq` is its position for the non-determinism check. False when the lease is gone.
 */
export async function checkpointStep(
  sql: SqlHandle,
  lease: Lease,
  step: { key: string; outputJson: string; seq: number | null },
): Promise<boolean> {
  const rows = await sql.unsafe<{ held: boolean }[]>(
    `WITH renewed AS (
       UPDATE runs SET checkpoints = checkpoints + 1, ${RENEW_AND_PROGRESS}
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING id
     ), step AS (
       INSERT INTO run_steps (run_id, key, output, seq) SELECT id, $5, $6::text::jsonb, $7 FROM renewed
       ON CONFLICT (run_id, key) DO NOTHING
       RETURNING run_id
     ), history AS (
       INSERT INTO run_events (run_id, type, payload) SELECT run_id, 'step_completed', jsonb_build_object('key', $5::text) FROM step
     )
     SELECT EXISTS (SELECT 1 FROM renewed) AS held`,
    [lease.runId, lease.workerId, lease.attempt, lease.leaseMs, step.key, step.outputJson, step.seq],
    PREPARED,
  );
  return rows[0]?.held === true;
}
