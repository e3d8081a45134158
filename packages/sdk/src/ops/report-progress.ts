import { jsonParam, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import type { Progress } from "../workflow";
import { LEASE_GUARD, type Lease } from "./types";

/**
 * Stores the latest progress of a leased run (and renews the lease); listeners are notified. Like a
 * renewal it changes no indexed column, so it is a HOT update (renew-lease.ts).
 */
export async function reportProgress(sql: SqlHandle, lease: Lease, progress: Progress): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE runs SET progress = $4::text::jsonb, updated_at = now(),
            lease_expires_at = now() + make_interval(secs => $5 / 1000.0), claimable_at = NULL
     WHERE id = $1 AND ${LEASE_GUARD}
     RETURNING pg_notify('${CHANNELS.task}', id::text)`,
    [lease.runId, lease.workerId, lease.attempt, jsonParam(progress), lease.leaseMs],
  );
  return rows.length === 1;
}
