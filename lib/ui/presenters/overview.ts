import "server-only";
import { isTerminal, RUN_STATUSES, type RunStatus } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type { Operator } from "../../auth";
import { countActiveByStatus, countFinishedSince, listOnlineWorkers, listRecentFailures, tasksPerMinute } from "../../tasks";

export type ChartSeries = { route: string; values: number[] };
export type MinuteChart = { minutes: string[]; created: ChartSeries[]; finished: ChartSeries[] };

export type Overview = {
  counts: { status: RunStatus; n: number; window: "now" | "24h" }[];
  workersOnline: number;
  workflowsServed: string[];
  recentFailures: { id: string; route: string; finishedAt: string; message: string }[];
  chart: MinuteChart;
};

/** Sixty one-minute buckets ending with the current minute, series per route (zero-filled). */
export function buildMinuteChart(
  rows: { minute: Date; route: string; created: number; finished: number }[],
  now: Date,
): MinuteChart {
  const end = Math.floor(now.getTime() / 60_000) * 60_000;
  const minutes = Array.from({ length: 60 }, (_, i) => new Date(end - (59 - i) * 60_000).toISOString());
  const index = new Map(minutes.map((minute, i) => [minute, i]));
  const routes = [...new Set(rows.map((row) => row.route))].sort();
  const series = (pick: "created" | "finished") =>
    routes
      .map((route) => {
        const values = new Array<number>(60).fill(0);
        for (const row of rows) {
          const i = index.get(new Date(row.minute).toISOString());
          if (row.route === route && i !== undefined) values[i] = (values[i] ?? 0) + row[pick];
        }
        return { route, values };
      })
      .filter((s) => s.values.some((v) => v > 0));
  return { minutes, created: series("created"), finished: series("finished") };
}

export async function presentOverview(sql: SqlHandle, operator: Operator, now = new Date()): Promise<Overview> {
  const scope = operator.tenantIds;
  const [active, finished, failures, perMinute, workers] = await Promise.all([
    countActiveByStatus(sql, scope),
    countFinishedSince(sql, scope, 24),
    listRecentFailures(sql, scope, 5),
    tasksPerMinute(sql, scope),
    listOnlineWorkers(sql, scope),
  ]);
  const count = (rows: { status: RunStatus; n: number }[], status: RunStatus) =>
    rows.find((row) => row.status === status)?.n ?? 0;
  return {
    counts: RUN_STATUSES.map((status) =>
      isTerminal(status)
        ? { status, n: count(finished, status), window: "24h" as const }
        : { status, n: count(active, status), window: "now" as const },
    ),
    workersOnline: workers.length,
    workflowsServed: [...new Set(workers.flatMap((worker) => worker.workflows))].sort(),
    recentFailures: failures.map((row) => ({
      id: row.id,
      route: `${row.tenant_slug}/${row.tool_name ?? row.workflow_key}`,
      finishedAt: new Date(row.finished_at).toISOString(),
      message: row.message ?? "failed",
    })),
    chart: buildMinuteChart(perMinute, now),
  };
}
