// (2) Enqueue → step start latency with one idle worker process waiting on LISTEN/NOTIFY: the bench
// creates one run at a time (workers idle in between) and the step records when it started.

import { CHANNELS, createRun, taskIdsOf } from "@runifold/sdk";
import { migrate } from "@runifold/store";
import postgres from "postgres";
import { type BenchContext, TENANT } from "./lib/context";
import { recreateDatabase } from "./lib/pg";
import { spawnTs, stopAll, waitFor } from "./lib/procs";
import { round, sleep, summary } from "./lib/stats";

const wallNow = () => performance.timeOrigin + performance.now();

export async function benchLatency(ctx: BenchContext) {
  const samples = ctx.quick ? 150 : 500;
  const url = await recreateDatabase(ctx.adminUrl, "bench_latency");
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  const env = {
    DATABASE_URL: url,
    RUNIFOLD_WORKER_CONCURRENCY: String(ctx.concurrency),
    RUNIFOLD_POLL_MS: "1000",
    RUNIFOLD_LEASE_MS: "30000",
  };
  let worker: ReturnType<typeof spawnTs> | undefined;
  try {
    await migrate(sql);
    await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'bench', 'Bench')`;
    worker = spawnTs("bench/procs/engine-worker.ts", env);
    await waitFor(
      async () => Number((await sql`SELECT count(*) AS n FROM worker_registrations`)[0]?.n) === 1,
      60_000,
      "worker registered",
    );
    const finished = new Set<string>();
    await sql.listen(CHANNELS.task, (payload) => {
      for (const id of taskIdsOf(payload)) finished.add(id);
    });
    const starts: { id: string; t0: number; created: number }[] = [];
    for (let i = 0; i < samples + 20; i++) {
      const t0 = wallNow();
      const run = await createRun(sql, { tenantId: TENANT, workflowName: "bench-noop", workflowVersion: 1, input: {} });
      const created = wallNow();
      await waitFor(() => finished.has(run.id), 10_000, "run to finish", 1);
      if (i >= 20) starts.push({ id: run.id, t0, created }); // the first 20 warm up plans and connections
      await sleep(5 + Math.random() * 10); // workers idle again
    }
    const rows =
      await sql`SELECT run_id, (output->>'startedAt')::float8 AS started FROM run_steps WHERE run_id IN ${sql(starts.map((s) => s.id))}`;
    const started = new Map(rows.map((r) => [r.run_id as string, Number(r.started)]));
    const latency = starts.map((s) => (started.get(s.id) ?? Number.NaN) - s.t0);
    const createRtt = starts.map((s) => s.created - s.t0);
    const stats = summary(latency);
    ctx.report.figure("latency.enqueue_to_step_start.p50", stats.p50, "ms", { note: `${stats.n} samples` });
    ctx.report.figure("latency.enqueue_to_step_start.p95", stats.p95, "ms");
    ctx.report.goal("latency.enqueue_to_step_start.p99", stats.p99);
    ctx.report.figure("latency.create_round_trip.p50", summary(createRtt).p50, "ms", {
      note: "createRun commit, included in the figure above",
    });
    ctx.report.figure("latency.create_round_trip.p99", summary(createRtt).p99, "ms");
    const commits = await durableCommitLatency(sql, samples);
    ctx.report.figure("latency.durable_commit.p50", commits.p50, "ms", {
      note: `${commits.n} single-row INSERT commits (synchronous_commit on), one at a time, same server: the floor under every create`,
    });
    ctx.report.figure("latency.durable_commit.p99", commits.p99, "ms");
    ctx.report.attach("latency", {
      samples: stats.n,
      enqueueToStepStart: stats,
      createRoundTrip: summary(createRtt),
      durableCommit: commits,
      mean: round(latency.reduce((a, b) => a + b, 0) / latency.length),
    });
  } finally {
    if (worker) await stopAll([worker]);
    await sql.end();
  }
}

/**
 * What the disk alone adds: a single-row INSERT into a one-column table, each its own durable
 * commit, paced like the creates above. Its tail is the WAL flush's tail, which every create (and
 * so every enqueue → start sample) waits for.
 */
async function durableCommitLatency(sql: postgres.Sql, samples: number) {
  await sql`CREATE TABLE bench_commit_probe (id bigserial PRIMARY KEY, n int NOT NULL)`;
  const times: number[] = [];
  for (let i = 0; i < samples + 20; i++) {
    const t0 = performance.now();
    await sql`INSERT INTO bench_commit_probe (n) VALUES (${i})`;
    if (i >= 20) times.push(performance.now() - t0);
    await sleep(2 + Math.random() * 3);
  }
  return summary(times);
}
