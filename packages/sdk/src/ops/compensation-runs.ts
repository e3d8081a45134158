import { PREPARED, type SqlHandle } from "@runifold/store";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Marks a run of a workflow with onFailure before its body starts (migration 0041): from then on,
 * cancelling it queues a compensation run. A run cancelled before this ran nothing to undo. Fenced
 * by the lease; false when it is gone (the attempt ends, nothing ran).
 */
export async function markOnFailure(sql: SqlHandle, lease: Lease): Promise<boolean> {
  const rows = await sql.unsafe(`UPDATE runs SET on_failure = true WHERE id = $1 AND ${LEASE_GUARD} RETURNING id`, [
    lease.runId,
    lease.workerId,
    lease.attempt,
  ]);
  return rows.length === 1;
}

/** The cancelled run a compensation run compensates: its ID and why it was cancelled. */
export type CompensatedRun = { id: string; reason: string };

export async function readCompensatedRun(sql: SqlHandle, runId: string): Promise<CompensatedRun | undefined> {
  const [row] = await sql.unsafe<{ id: string; reason: string | null }[]>(
    `SELECT o.id, o.status_message AS reason FROM runs c JOIN runs o ON o.id = c.compensates_run_id
     WHERE c.id = $1 AND o.tenant_id = c.tenant_id`,
    [runId],
    PREPARED,
  );
  return row ? { id: row.id, reason: row.reason ?? "Cancelled" } : undefined;
}
