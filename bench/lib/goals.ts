// The goals table in one place: every figure with a goal is recorded under one of these stable
// names, and a goal whose figure could not be measured is still written (met: false, with the reason),
// so latest.json and docs/benchmarks.md always show the whole table.

export type Goal = {
  /** Stable figure name in bench/results/latest.json. */
  name: string;
  /** What the figure is, as the docs table states it. */
  label: string;
  op: "<=" | ">=";
  limit: number;
  unit: string;
  /** The bench section that measures it (bench/run.ts step name). */
  section: string;
};

export const GOALS: readonly Goal[] = [
  {
    name: "ratio.runifold_2_vs_graphile_default_2",
    label: "durable 1-step workflows/s ÷ graphile-worker no-op jobs/s (default config), 2 processes each",
    op: ">=",
    limit: 1.2,
    unit: "x",
    section: "throughput",
  },
  {
    name: "ratio.runifold_2_vs_graphile_batched_2",
    label: "the same ÷ graphile-worker with localQueue + batched completion, 2 processes each",
    op: ">=",
    limit: 0.8,
    unit: "x",
    section: "throughput",
  },
  {
    name: "ratio.runifold_transitions_vs_single_row_commits",
    label: "transitions/s ÷ single-row commit limit, same connections",
    op: ">=",
    limit: 0.5,
    unit: "x",
    section: "physical",
  },
  {
    name: "latency.enqueue_to_step_start.p99",
    label: "enqueue → step start p99",
    op: "<=",
    limit: 5,
    unit: "ms",
    section: "latency",
  },
  {
    name: "mcp.tools_call_create_task.p50",
    label: "tools/call → CreateTaskResult p50",
    op: "<=",
    limit: 3,
    unit: "ms",
    section: "mcp",
  },
  {
    name: "ratio.tasks_get_vs_bare_route",
    label: "tasks/get req/s ÷ bare Next route (GET /api/mcp) req/s, same server, autocannon",
    op: ">=",
    limit: 0.85,
    unit: "x",
    section: "mcp",
  },
  {
    name: "mcp.tasks_get.p99",
    label: "tasks/get p99 under the same load (autocannon, 16 connections)",
    op: "<=",
    limit: 25,
    unit: "ms",
    section: "mcp",
  },
  {
    name: "ratio.tasks_get_vs_bare_post_401",
    label: "tasks/get req/s ÷ the same POST without a credential (401 before any read): Next's floor for a POST",
    op: ">=",
    limit: 0.95,
    unit: "x",
    section: "mcp",
  },
  {
    name: "ratio.tasks_get_p99_vs_bare_post_401_p99",
    label: "tasks/get p99 ÷ that 401 POST's p99, same loads",
    op: "<=",
    limit: 1.15,
    unit: "x",
    section: "mcp",
  },
  {
    name: "ratio.tasks_get_vs_reference_server",
    label: "legacy tasks/get req/s ÷ the in-memory reference server's (server-everything), same generator and connections",
    op: ">=",
    limit: 0.6,
    unit: "x",
    section: "reference",
  },
  {
    name: "ratio.create_vs_reference_server",
    label: "legacy task creation req/s ÷ the reference server's, every Runifold answer durable",
    op: ">=",
    limit: 0.4,
    unit: "x",
    section: "reference",
  },
  {
    name: "ratio.runifold_10_step_vs_graphile_default_x10",
    label: "10-step workflows/s ÷ graphile-worker jobs/s × 10, 2 processes each",
    op: ">=",
    limit: 1.0,
    unit: "x",
    section: "throughput",
  },
  {
    name: "claims.tenants_10000.claim_4.p50",
    label: "a claim of 4 runs p50 at 10,000 tenants each holding parked runs, beside a due backlog",
    op: "<=",
    limit: 3,
    unit: "ms",
    section: "claims",
  },
  {
    name: "claims.tenants_10000.claim_4.buffers",
    label: "shared buffers one such claim touches",
    op: "<=",
    limit: 500,
    unit: "buffers",
    section: "claims",
  },
  {
    name: "scale.list_first_page.p50",
    label: "task list first page p50 at the scale size (10M full, 100k quick)",
    op: "<=",
    limit: 2,
    unit: "ms",
    section: "list",
  },
  {
    name: "scale.tasks_get_read.p50",
    label: "tasks/get read statement (readTaskRecord) p50 at the scale size",
    op: "<=",
    limit: 2,
    unit: "ms",
    section: "list",
  },
  {
    name: "listen.streams_5000.held",
    label: "subscriptions/listen streams one web process holds open with their snapshot (5 per task over 1,000 tasks)",
    op: ">=",
    limit: 5000,
    unit: "streams",
    section: "listen",
  },
  {
    name: "listen.streams_5000.change_to_notification.p50",
    label: "with those streams open: state change → notifications/tasks at the task's first stream p50",
    op: "<=",
    limit: 5,
    unit: "ms",
    section: "listen",
  },
  {
    name: "listen.streams_5000.changes_delivered_to_every_stream",
    label: "share of those changes that reached all 5 streams of their task",
    op: ">=",
    limit: 1,
    unit: "x",
    section: "listen",
  },
];

export function goalNamed(name: string): Goal {
  const goal = GOALS.find((g) => g.name === name);
  if (!goal) throw new Error(`no goal named ${name} in bench/lib/goals.ts`);
  return goal;
}
