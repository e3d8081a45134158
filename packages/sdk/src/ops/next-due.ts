import { PREPARED, type SqlHandle } from "@runifold/store";
import { TIMERS_SQL } from "./claim-runs";

/**
 * How long until the next parked run of these versions comes due (a sleep's wake, a retry's
 * backoff, a wait's timeout), if any — measured by the database's clock, so a skewed worker clock
 * never arms a timer too early or too late. One probe of runs_timer_idx (workflow_key,
 * claimable_at) per served version, each reading from the low end and stopping at its first row.
 * Queued runs are not in it: they wake workers by NOTIFY when they are queued, and a backlog a
 * claim leaves behind (its tenant is disabled or at its cap) must not make a worker poll it in a
 * loop. Expired leases are not in it either: the sweep finds them (promote-due-runs.ts).
 */
export async function msUntilNextDue(sql: SqlHandle, workflowKeys: string[]): Promise<number | undefined> {
  if (workflowKeys.length === 0) return undefined;
  const rows = await sql.unsafe<{ ms: number | null }[]>(
    `SELECT (extract(epoch FROM min(n.claimable_at) - now()) * 1000)::float8 AS ms
     FROM unnest($1::text[]) AS k(workflow_key)
     CROSS JOIN LATERAL (
       SELECT q.claimable_at FROM runs q
       WHERE q.workflow_key = k.workflow_key AND ${TIMERS_SQL}
       ORDER BY q.workflow_key, q.claimable_at LIMIT 1
     ) n`,
    [workflowKeys],
    PREPARED,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : ms;
}
