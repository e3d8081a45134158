import { PREPARED, type SqlHandle } from "@runifold/store";
import { LEASE_GUARD, type Lease } from "./types";

/** The heartbeat during a long step: extends the lease; false means it was lost (cancelled or reclaimed). */
export async function renewLease(sql: SqlHandle, lease: Lease): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE runs SET lease_expires_at = now() + make_interval(secs => $4 / 1000.0),
            claimable_at = now() + make_interval(secs => $4 / 1000.0)
     WHERE id = $1 AND ${LEASE_GUARD} RETURNING id`,
    [lease.runId, lease.workerId, lease.attempt, lease.leaseMs],
    PREPARED,
  );
  return rows.length === 1;
}
