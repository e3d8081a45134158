import type { SqlHandle } from "@runifold/store";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Appends a ctx.log line to the run's timeline (`run_events` type `log`), only while this worker
 * holds the lease: a zombie attempt writes nothing. Returns false when the lease is gone.
 */
export async function appendLog(sql: SqlHandle, lease: Lease, entryJson: string): Promise<boolean> {
  const rows = await sql.unsafe(
    `INSERT INTO run_events (run_id, type, payload)
     SELECT id, 'log', $4::text::jsonb FROM runs WHERE id = $1 AND ${LEASE_GUARD}
     RETURNING id`,
    [lease.runId, lease.workerId, lease.attempt, entryJson],
  );
  return rows.length === 1;
}
