import { RUN_STATUSES, TERMINAL_STATUSES } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";

/** What GET /api/metrics reports from the store, read at scrape time. */
export type MetricsSnapshot = {
  /** Every published `name@version`: the series that read 0 when nothing of that workflow is live. */
  workflows: string[];
  /** Every tenant slug (bounded by the number of tenants, which operators create by hand). */
  tenants: string[];
  liveRuns: { status: string; workflow: string; runs: number }[];
  claimable: { workflow: string; runs: number; oldest_seconds: number }[];
  inputRequired: { tenant: string; tasks: number; oldest_seconds: number }[];
  /** Open approvals per tenant and the oldest one's age (docs/approvals.md). */
  openApprovals: { tenant: string; approvals: number; oldest_seconds: number }[];
  /**
   * Settled approvals per tenant, way and outcome (approval_settle_stats, counted as each settles):
   * count, seconds from opening summed, cumulative counts per APPROVAL_SETTLE_BUCKETS bound.
   */
  settledApprovals: {
    tenant: string;
    settled_by: "decisions" | "expiry";
    outcome: string;
    settled: number;
    seconds_sum: number;
    buckets: number[];
  }[];
  /**
   * Whether the server answering takes writes: false on a standby (in recovery) or a read-only
   * session, e.g. while a failover is in progress and a multi-host URL landed on the standby, which
   * still answers every read above (docs/deploy.md "High availability").
   */
  writable: boolean;
};

const LIVE_STATUSES = RUN_STATUSES.filter((status) => !TERMINAL_STATUSES.includes(status));
/** The same list as runs_live_status_idx's predicate (db/schema/runs.ts), so the planner can use that index. */
const LIVE_SQL = `(${LIVE_STATUSES.map((status) => `'${status}'`).join(", ")})`;

/**
 * Small reads, each served by an index whose size follows the live work, not the history:
 * live runs by status and workflow (runs_live_status_idx, index-only), what is claimable now and
 * since when (the claims' two partial indexes, runs_ready_idx and runs_timer_idx, each spelled
 * with its own predicate so the planner can use it), unanswered input per tenant (runs_live_status_idx for the
 * waiting_input runs, then run_inputs by primary key), open approvals per tenant (approvals_open_tenant_idx),
 * settled approvals' counters (approval_settle_stats, a few rows per tenant). Terminal runs are never counted here: that
 * would scan the whole retained history on every scrape (the workers' runifold_attempts_total
 * counts outcomes instead).
 */
export async function readMetricsSnapshot(sql: SqlHandle): Promise<MetricsSnapshot> {
  const [workflows, tenants, liveRuns, claimable, inputRequired, openApprovals, settledApprovals, writable] = await Promise.all([
    sql.unsafe<{ workflow: string }[]>(
      `SELECT name || '@' || version AS workflow FROM workflow_definitions ORDER BY name, version`,
    ),
    sql.unsafe<{ slug: string }[]>(`SELECT slug FROM tenants ORDER BY slug`),
    sql.unsafe<MetricsSnapshot["liveRuns"]>(
      `SELECT status, workflow_key AS workflow, count(*)::int AS runs
       FROM runs WHERE status IN ${LIVE_SQL}
       GROUP BY status, workflow_key`,
    ),
    sql.unsafe<MetricsSnapshot["claimable"]>(
      `SELECT workflow_key AS workflow, count(*)::int AS runs,
              greatest(extract(epoch FROM now() - min(claimable_at)), 0)::float8 AS oldest_seconds
       FROM (
         SELECT workflow_key, claimable_at FROM runs
         WHERE claimable_at IS NOT NULL AND status IN ('queued', 'leased') AND claimable_at <= now()
         UNION ALL
         SELECT workflow_key, claimable_at FROM runs
         WHERE claimable_at IS NOT NULL AND status IN ('sleeping', 'waiting_signal', 'waiting_input') AND claimable_at <= now()
       ) due
       GROUP BY workflow_key`,
    ),
    sql.unsafe<MetricsSnapshot["inputRequired"]>(
      `SELECT t.slug AS tenant, count(*)::int AS tasks, max(w.waiting)::float8 AS oldest_seconds
       FROM (
         SELECT r.tenant_id, greatest(extract(epoch FROM now() - min(i.requested_at)), 0) AS waiting
         FROM runs r JOIN run_inputs i ON i.run_id = r.id AND i.response IS NULL AND i.answered_at IS NULL
         WHERE r.status = 'waiting_input'
         GROUP BY r.tenant_id, r.id
       ) w JOIN tenants t ON t.id = w.tenant_id
       GROUP BY t.slug`,
    ),
    // approvals_open_tenant_idx: only open approvals are in it.
    sql.unsafe<MetricsSnapshot["openApprovals"]>(
      `SELECT t.slug AS tenant, count(*)::int AS approvals,
              greatest(extract(epoch FROM now() - min(a.opened_at)), 0)::float8 AS oldest_seconds
       FROM approvals a JOIN tenants t ON t.id = a.tenant_id
       WHERE a.status = 'open'
       GROUP BY t.slug`,
    ),
    // A few rows per tenant (way × outcome), kept up to date by each settlement: no scan of the history.
    sql.unsafe<MetricsSnapshot["settledApprovals"]>(
      `SELECT t.slug AS tenant, s.settled_by, s.outcome, s.settled::float8 AS settled, s.seconds_sum,
              s.buckets::float8[] AS buckets
       FROM approval_settle_stats s JOIN tenants t ON t.id = s.tenant_id`,
    ),
    // The same test as GET /api/health's (lib/health.ts).
    sql.unsafe<{ writable: boolean }[]>(
      `SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable`,
    ),
  ]);
  return {
    workflows: workflows.map((row) => row.workflow),
    tenants: tenants.map((row) => row.slug),
    liveRuns,
    claimable,
    inputRequired,
    openApprovals,
    settledApprovals,
    writable: writable[0]?.writable === true,
  };
}
