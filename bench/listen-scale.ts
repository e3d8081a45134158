// (listen) Listeners at scale: how many subscriptions/listen streams (2026-07-28, SSE) one web process
// holds — 5,000 over 1,000 tasks (1,000 over 200 with --quick), five per task — and whether a state
// change still reaches every stream of its task quickly while all of them stay open. The load runs
// in a separate process (bench/procs/listen-load.ts). Tasks are bound to the key that created them
// and a key holds at most RUNIFOLD_MAX_STREAMS_PER_KEY (100) streams per process, so the streams are
// spread over one key per 20 tasks, as that many clients would hold them.

import { createApiKey } from "../lib/auth";
import type { BenchContext } from "./lib/context";
import { awaitResult, type Child, spawnWithResult, stopAll } from "./lib/procs";
import { type RunifoldWeb, startRunifoldWeb } from "./lib/runifold-web";
import { round, summary } from "./lib/stats";

const PER_TASK = 5;
/** 20 tasks × 5 streams = the default per-key stream cap (100). */
const TASKS_PER_KEY = 20;

type ListenResult = {
  streams: number;
  refused: number;
  refusedStatuses: number[];
  withSnapshot: number;
  stillOpen: number;
  openMs: number;
  rssBeforeKb: number;
  rssAfterKb: number;
  idle: { seconds: number; commits: number; webCpuMs: number };
  changes: {
    count: number;
    seconds: number;
    window: number;
    commits: number;
    first: number[];
    last: number[];
    fromCommit: number[];
    delivered: number[];
  };
};

export async function benchListenScale(ctx: BenchContext) {
  const tasks = ctx.quick ? 200 : 1_000;
  const changes = ctx.quick ? 30 : 100;
  const children: Child[] = [];
  let stack: RunifoldWeb | undefined;
  try {
    stack = await startRunifoldWeb(ctx.adminUrl, "bench_listen", children, ctx.log);
    const tenantId = (await stack.sql`SELECT id FROM tenants WHERE slug = 'conformance'`)[0]?.id as string;
    const tokens = [stack.token];
    while (tokens.length < tasks / TASKS_PER_KEY)
      tokens.push((await createApiKey(stack.sql, { tenantId, name: `listen-${tokens.length}` })).token);
    const load = spawnWithResult(
      "bench/procs/listen-load.ts",
      {
        BENCH_MCP_URL: stack.mcpUrl,
        BENCH_TOKENS: tokens.join(","),
        BENCH_TASKS_PER_KEY: String(TASKS_PER_KEY),
        BENCH_PER_TASK: String(PER_TASK),
        BENCH_CHANGES: String(changes),
        BENCH_WEB_PID: String(stack.web.pid),
        BENCH_IDLE_MS: String(ctx.quick ? 6_000 : 11_000),
        // --quick skips most of the statistics flush after the changes: it only feeds a detail, not a figure.
        BENCH_AFTER_MS: String(ctx.quick ? 1_000 : 11_000),
        DATABASE_URL: stack.url,
      },
      "listen-load",
    );
    children.push(load.child);
    const result = await awaitResult<ListenResult>(load.child, load.file, 600_000, "listen load process");
    const r = ctx.report;
    const target = tasks * PER_TASK;
    // The goals are named for the full size; --quick records the same figures at its own size.
    const goal = "listen.streams_5000";
    const name = "listen.scale";
    const size = `${target} streams over ${tasks} tasks`;
    const held = result.withSnapshot;
    const heldNote = `with a snapshot, of ${result.streams} opened (${PER_TASK} per task, ${tokens.length} keys) in ${round(result.openMs / 1000, 1)} s; ${result.refused} refused (${result.refusedStatuses.join(", ") || "none"}); ${result.stillOpen} still open after the changes`;
    if (ctx.quick) {
      r.figure(`${name}.held`, held, "streams", { note: heldNote });
      r.missing(`${goal}.held`, "streams", `--quick opens ${target} streams: held ${held}`, { goal: true, target: ">= 5000" });
    } else r.goal(`${goal}.held`, held, heldNote);
    const perStreamKb = (result.rssAfterKb - result.rssBeforeKb) / Math.max(1, held);
    r.figure(`${name}.memory_per_stream`, round(perStreamKb, 1), "KiB", {
      note: `web process tree RSS ${round(result.rssBeforeKb / 1024, 0)} MiB before, ${round(result.rssAfterKb / 1024, 0)} MiB with the streams open`,
    });
    r.figure(`${name}.idle_web_cpu`, round(result.idle.webCpuMs / result.idle.seconds, 1), "ms/s", {
      note: "web CPU per second while the streams are open and nothing changes",
    });
    const idleRate = result.idle.commits / result.idle.seconds;
    r.figure(`${name}.idle_transactions`, round(idleRate, 1), "tx/s", {
      note: `the bench database's committed transactions per second while nothing changes (the streams' fallback polls: credential re-checks and task reads; the worker's polls): ${round(idleRate / Math.max(1, held), 2)} per stream`,
    });
    const first = summary(result.changes.first);
    const last = summary(result.changes.last);
    const fromCommit = summary(result.changes.fromCommit);
    r.goal(
      `${goal}.change_to_notification.p50`,
      first.p50,
      `${size}: ${first.n} cancels one at a time (SQL, cancelRunAsAdmin) → "cancelled" at the first of the task's streams, from the call; ${fromCommit.p50} ms from its commit`,
    );
    r.figure(`${name}.change_to_notification.p99`, first.p99, "ms");
    r.figure(`${name}.change_to_last_stream.p50`, last.p50, "ms", {
      note: `all ${PER_TASK} streams of the task; p99 ${last.p99} ms`,
    });
    const complete = result.changes.delivered.filter((n) => n === PER_TASK).length;
    r.goal(
      `${goal}.changes_delivered_to_every_stream`,
      round(complete / Math.max(1, result.changes.count), 3),
      `${size}: ${complete} of ${result.changes.count} changes reached all ${PER_TASK} streams of their task; notifications received ${result.changes.delivered.reduce((a, b) => a + b, 0)} of ${result.changes.count * PER_TASK}`,
    );
    // Not a figure: at hundreds of background transactions a second (the streams' fallback polls) the
    // difference a few statements per change make is below the noise of pg_stat_database's counters.
    // tests/mcp/listen-shared-reads.test.ts counts the task reads per change instead.
    const perChange = (result.changes.commits - idleRate * result.changes.window) / Math.max(1, result.changes.count);
    r.attach("listen", {
      ...result,
      transactionsPerChangeOverIdle: round(perChange, 1),
      tokens: tokens.length,
      perTask: PER_TASK,
      first,
      last,
      fromCommit,
    });
    if (held < target) throw new Error(`held ${held} of ${target} streams`);
  } finally {
    await stopAll(children);
    await stack?.sql.end();
  }
}
