import { APPROVAL_SETTLE_BUCKETS, RUN_STATUSES, TERMINAL_STATUSES } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { type MetricsSnapshot, readMetricsSnapshot } from "../tasks";
import { gauge } from "./registry";
import { histogramSamples, type SnapshotSample, snapshotFamily } from "./snapshot-family";

const LIVE_STATUSES = RUN_STATUSES.filter((status) => !TERMINAL_STATUSES.includes(status));

/** The families read from the store at scrape time (lib/tasks/queries/metrics-snapshot.ts has the queries). */
function families() {
  return {
    runs: gauge({
      name: "runifold_runs",
      help: "Live runs by status and workflow (terminal runs are not counted: see runifold_attempts_total on the workers)",
      labelNames: ["status", "workflow"],
    }),
    claimable: gauge({
      name: "runifold_claimable_runs",
      help: "Runs a worker may claim now (queued, due timers and deadlines, expired leases)",
      labelNames: ["workflow"],
    }),
    oldestClaimable: gauge({
      name: "runifold_oldest_claimable_age_seconds",
      help: "How long the longest-waiting claimable run has been claimable (0 when none)",
      labelNames: ["workflow"],
    }),
    inputRequired: gauge({
      name: "runifold_input_required_tasks",
      help: "Tasks waiting for a person's (or client's) answer, per tenant slug",
      labelNames: ["tenant"],
    }),
    oldestInput: gauge({
      name: "runifold_oldest_unanswered_input_age_seconds",
      help: "Age of the oldest unanswered input request, per tenant slug (0 when none)",
      labelNames: ["tenant"],
    }),
    openApprovals: gauge({
      name: "runifold_open_approvals",
      help: "Approvals waiting for decisions (ctx.requestApproval), per tenant slug",
      labelNames: ["tenant"],
    }),
    oldestApproval: gauge({
      name: "runifold_oldest_open_approval_age_seconds",
      help: "Age of the oldest open approval, per tenant slug (0 when none)",
      labelNames: ["tenant"],
    }),
    // Totals kept in the store as each approval settles (approval_settle_stats), so every instance reports the same.
    decideSeconds: snapshotFamily({
      name: "runifold_approval_decide_seconds",
      help: "Time from an approval opening to the decision that settled it, per tenant slug and outcome (settled by people, not expiry)",
      type: "histogram",
    }),
    expired: snapshotFamily({
      name: "runifold_approvals_expired_total",
      help: "Approvals that expired, per tenant slug and the outcome onExpire gave them (expired when none)",
      type: "counter",
    }),
    storeUp: gauge({ name: "runifold_store_up", help: "1 when this scrape could read the store, else 0" }),
    storeWritable: gauge({
      name: "runifold_store_writable",
      help: "1 when the store server this scrape read takes writes, 0 when it is a standby or read-only (a failover in progress) or unreachable",
    }),
    readSeconds: gauge({
      name: "runifold_store_scrape_duration_seconds",
      help: "How long this scrape's store queries took",
    }),
  };
}

/**
 * Reads the store and replaces every store-derived series with what it says now. The replacement
 * is synchronous once the rows are in, so a concurrent scrape never sees half of one snapshot;
 * concurrent scrapes share one read. A failed read drops the store series and sets runifold_store_up 0
 * (the in-process families are still served).
 */
export function createStoreGauges(sql: () => SqlHandle): { refresh(): Promise<void> } {
  const f = families();
  let inFlight: Promise<void> | undefined;
  async function read() {
    const started = performance.now();
    let snapshot: MetricsSnapshot;
    try {
      snapshot = await readMetricsSnapshot(sql());
    } catch {
      for (const family of [
        f.runs,
        f.claimable,
        f.oldestClaimable,
        f.inputRequired,
        f.oldestInput,
        f.openApprovals,
        f.oldestApproval,
        f.decideSeconds,
        f.expired,
      ])
        family.reset();
      f.storeUp.set(0);
      f.storeWritable.set(0);
      return;
    }
    apply(f, snapshot);
    f.storeUp.set(1);
    f.storeWritable.set(snapshot.writable ? 1 : 0);
    f.readSeconds.set((performance.now() - started) / 1000);
  }
  return {
    refresh() {
      inFlight ??= read().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}

/** Every known workflow and tenant gets a series (0 when idle), so graphs and alerts see a value, not a gap. */
function apply(f: ReturnType<typeof families>, snapshot: MetricsSnapshot) {
  const workflows = new Set([...snapshot.workflows, ...snapshot.liveRuns.map((row) => row.workflow)]);
  f.runs.reset();
  for (const workflow of workflows) for (const status of LIVE_STATUSES) f.runs.set({ status, workflow }, 0);
  for (const row of snapshot.liveRuns) f.runs.set({ status: row.status, workflow: row.workflow }, row.runs);
  f.claimable.reset();
  f.oldestClaimable.reset();
  for (const workflow of workflows) {
    f.claimable.set({ workflow }, 0);
    f.oldestClaimable.set({ workflow }, 0);
  }
  for (const row of snapshot.claimable) {
    f.claimable.set({ workflow: row.workflow }, row.runs);
    f.oldestClaimable.set({ workflow: row.workflow }, row.oldest_seconds);
  }
  f.inputRequired.reset();
  f.oldestInput.reset();
  for (const tenant of snapshot.tenants) {
    f.inputRequired.set({ tenant }, 0);
    f.oldestInput.set({ tenant }, 0);
  }
  for (const row of snapshot.inputRequired) {
    f.inputRequired.set({ tenant: row.tenant }, row.tasks);
    f.oldestInput.set({ tenant: row.tenant }, row.oldest_seconds);
  }
  f.openApprovals.reset();
  f.oldestApproval.reset();
  for (const tenant of snapshot.tenants) {
    f.openApprovals.set({ tenant }, 0);
    f.oldestApproval.set({ tenant }, 0);
  }
  for (const row of snapshot.openApprovals) {
    f.openApprovals.set({ tenant: row.tenant }, row.approvals);
    f.oldestApproval.set({ tenant: row.tenant }, row.oldest_seconds);
  }
  applyApprovalTotals(f, snapshot);
}

/** The settled approvals' histogram and the expired counter (0 for each tenant and outcome until one expires). */
function applyApprovalTotals(f: ReturnType<typeof families>, snapshot: MetricsSnapshot) {
  const bounds = APPROVAL_SETTLE_BUCKETS;
  const decided: SnapshotSample[] = [];
  const expired = new Map<string, SnapshotSample>();
  for (const tenant of snapshot.tenants)
    for (const outcome of ["approved", "rejected", "expired"])
      expired.set(`${tenant}\n${outcome}`, { labels: { tenant, outcome }, value: 0 });
  for (const row of snapshot.settledApprovals) {
    if (row.settled_by === "expiry") {
      expired.set(`${row.tenant}\n${row.outcome}`, { labels: { tenant: row.tenant, outcome: row.outcome }, value: row.settled });
    } else if (row.buckets.length === bounds.length) {
      const labels = { tenant: row.tenant, outcome: row.outcome };
      decided.push(
        ...histogramSamples("runifold_approval_decide_seconds", labels, bounds, {
          buckets: row.buckets,
          count: row.settled,
          sum: row.seconds_sum,
        }),
      );
    }
  }
  f.decideSeconds.set(decided);
  f.expired.set([...expired.values()]);
}
