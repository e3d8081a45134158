import type { SqlHandle } from "@runifold/store";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Inside a transaction: locks the run this lease holds (false if the lease is gone). Parking a run
 * for a signal or input takes this lock first, as sendSignal and provideInput do, so the two sides
 * serialise and no wake-up is lost between "nothing yet" and "now waiting".
 */
export async function lockLeasedRun(tx: SqlHandle, lease: Lease): Promise<boolean> {
  const held = await tx.unsafe(`SELECT 1 FROM runs WHERE id = $1 AND ${LEASE_GUARD} FOR UPDATE`, [
    lease.runId,
    lease.workerId,
    lease.attempt,
  ]);
  return held.length === 1;
}
