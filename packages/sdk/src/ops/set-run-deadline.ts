import type { SqlHandle } from "@runifold/store";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Gives a run the timeout its workflow definition declares, counted from the run's creation, when
 * the creator did not know the definition (a web process that only has the route): the first
 * attempt sets it once, so parked runs are bounded by the deadline sweep from then on.
 */
export async function setRunDeadline(sql: SqlHandle, lease: Lease, timeoutMs: number): Promise<Date | undefined> {
  const rows = await sql.unsafe<{ deadline_at: Date }[]>(
    `UPDATE runs SET deadline_at = created_at + make_interval(secs => $4::float8 / 1000.0)
     WHERE id = $1 AND ${LEASE_GUARD} AND deadline_at IS NULL
     RETURNING deadline_at`,
    [lease.runId, lease.workerId, lease.attempt, timeoutMs],
  );
  return rows[0]?.deadline_at;
}
