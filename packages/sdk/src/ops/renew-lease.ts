import { PREPARED, type SqlHandle } from "@runifold/store";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * The heartbeat during a long step: extends the lease; false means it was lost (cancelled or
 * reclaimed). `lease_expires_at` is in no index and a held lease has `claimable_at` NULL already
 * (claim-runs.ts), so the update changes no indexed column and Postgres makes it HOT: it writes one
 * row version on the same page and no index entry, whatever the run's input holds (review 3, E11:
 * 1.3 KB of WAL a renewal with an empty input, 4.6 KB with a 200-field one, when a renewal moved
 * `claimable_at`; tests/engine/lease-writes.test.ts). Setting `claimable_at` NULL only changes
 * the row when the sweep had already marked this lease expired (promote-due-runs.ts): the worker
 * still holds it, so it leaves the claim index again.
 */
export async function renewLease(sql: SqlHandle, lease: Lease): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE runs SET lease_expires_at = now() + make_interval(secs => $4 / 1000.0), claimable_at = NULL
     WHERE id = $1 AND ${LEASE_GUARD} RETURNING id`,
    [lease.runId, lease.workerId, lease.attempt, lease.leaseMs],
    PREPARED,
  );
  return rows.length === 1;
}
