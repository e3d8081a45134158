// (1) Durable one-step workflows/s end to end: Runifold (1 and 2 worker processes) vs graphile-worker
// 0.17 no-op jobs/s vs DBOS Transact one-step workflows/s, same server, separate databases, same
// producer shape (P parallel loops, one create per round trip) and the same per-process concurrency.
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { createRun } from "@runifold/sdk";
import { makeWorkerUtils, runMigrations } from "graphile-worker";
import postgres from "postgres";
import { migrate } from "../db/migrate";
import { type BenchContext, TENANT } from "./lib/context";
import { recreateDatabase } from "./lib/pg";
import { type Child, inParallel, spawnTs, stopAll, waitFor } from "./lib/procs";
import { round, sleep } from "./lib/stats";

type Measured = { perSecond: number; count: number; ms: number };

/** Times `produce` plus the drain: from the first create to the moment `done()` holds. */
async function timeRun(count: number, produce: () => Promise<void>, done: () => Promise<boolean>): Promise<Measured> {
  const started = performance.now();
  await produce();
  await waitFor(done, 180_000, "all runs to complete", 10);
  const ms = performance.now() - started;
  return { perSecond: round((count * 1000) / ms, 1), count, ms: round(ms, 1) };
}

async function waitReady(children: Child[]) {
  for (const child of children) await waitFor(() => child.output().includes("READY"), 60_000, "worker READY");
}

export async function runifoldThroughput(
  ctx: BenchContext,
  procs: number,
  count: number,
): Promise<Measured & { transitionsPerRun: number; commitsPerRun: number }> {
  const url = await recreateDatabase(ctx.adminUrl, "bench_engine");
  const sql = postgres(url, { max: ctx.producers, onnotice: () => {} });
  try {
    await migrate(sql);
    await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'bench', 'Bench')`;
    const env = {
      DATABASE_URL: url,
      RUNIFOLD_WORKER_CONCURRENCY: String(ctx.concurrency),
      RUNIFOLD_POLL_MS: "1000",
      RUNIFOLD_LEASE_MS: "30000",
    };
    const workers = Array.from({ length: procs }, () => spawnTs("bench/procs/engine-worker.ts", env));
    try {
      await waitFor(
        async () => Number((await sql`SELECT count(*) AS n FROM worker_registrations WHERE stopped_at IS NULL`)[0]?.n) === procs,
        60_000,
        "workers registered",
      );
      const create = () =>
        createRun(sql, { tenantId: TENANT, workflowName: "bench-noop", workflowVersion: 1, input: {} }).then(() => {});
      const completed = async () => Number((await sql`SELECT count(*) AS n FROM runs WHERE status = 'completed'`)[0]?.n);
      await inParallel(50, ctx.producers, create); // warm-up: connections, plans, JIT
      await waitFor(async () => (await completed()) === 50, 60_000, "warm-up");
      const commits = async () =>
        Number((await sql`SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`)[0]?.xact_commit);
      const before = await commits();
      const measured = await timeRun(
        count,
        () => inParallel(count, ctx.producers, create),
        async () => (await completed()) === count + 50,
      );
      await sleep(1_100); // backends flush their statistics about once a second
      const commitsPerRun = round(((await commits()) - before) / count, 2);
      const failed = Number((await sql`SELECT count(*) AS n FROM runs WHERE status <> 'completed'`)[0]?.n);
      if (failed > 0) throw new Error(`${failed} bench runs did not complete`);
      // Durable write transactions per run: create, claim (lease), step checkpoint, terminal.
      return { ...measured, transitionsPerRun: 4, commitsPerRun };
    } finally {
      await stopAll(workers);
    }
  } finally {
    await sql.end();
  }
}

export async function graphileThroughput(ctx: BenchContext, procs: number, count: number): Promise<Measured> {
  const url = await recreateDatabase(ctx.adminUrl, "bench_graphile");
  await runMigrations({ connectionString: url });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const utils = await makeWorkerUtils({ connectionString: url, maxPoolSize: ctx.producers });
  const workers = Array.from({ length: procs }, () =>
    spawnTs("bench/procs/graphile-worker.ts", { DATABASE_URL: url, BENCH_CONCURRENCY: String(ctx.concurrency) }),
  );
  try {
    await waitReady(workers);
    const add = () => utils.addJob("noop", {}).then(() => {});
    const remaining = async () => Number((await sql`SELECT count(*) AS n FROM graphile_worker._private_jobs`)[0]?.n);
    await inParallel(50, ctx.producers, add);
    await waitFor(async () => (await remaining()) === 0, 60_000, "warm-up");
    return await timeRun(
      count,
      () => inParallel(count, ctx.producers, add),
      async () => (await remaining()) === 0,
    );
  } finally {
    await stopAll(workers);
    await utils.release();
    await sql.end();
  }
}

export async function dbosQueueThroughput(ctx: BenchContext, procs: number, count: number): Promise<Measured> {
  const url = await recreateDatabase(ctx.adminUrl, "bench_dbos");
  const env = { DATABASE_URL: url, BENCH_MODE: "queue", BENCH_CONCURRENCY: String(ctx.concurrency) };
  const workers: Child[] = [];
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let client: DBOSClient | undefined;
  try {
    // One at a time: the first launch creates DBOS's schema.
    for (let i = 0; i < procs; i++) {
      workers.push(spawnTs("bench/procs/dbos-worker.ts", env));
      await waitReady(workers);
    }
    client = await DBOSClient.create({
      systemDatabaseUrl: url,
      systemDatabasePoolSize: ctx.producers,
      applicationName: "runifold-bench",
    });
    const enqueue = () => (client as DBOSClient).enqueue({ queueName: "bench", workflowName: "benchNoop" }).then(() => {});
    const succeeded = async () =>
      Number((await sql`SELECT count(*) AS n FROM dbos.workflow_status WHERE status = 'SUCCESS'`)[0]?.n);
    await inParallel(50, ctx.producers, enqueue);
    await waitFor(async () => (await succeeded()) === 50, 60_000, "warm-up");
    return await timeRun(
      count,
      () => inParallel(count, ctx.producers, enqueue),
      async () => (await succeeded()) === count + 50,
    );
  } finally {
    await client?.destroy();
    await stopAll(workers);
    await sql.end();
  }
}

/** DBOS's own fastest path: each process starts and awaits its workflows in-process (no queue, no claim). */
export async function dbosDirectThroughput(ctx: BenchContext, procs: number, count: number): Promise<Measured> {
  const url = await recreateDatabase(ctx.adminUrl, "bench_dbos");
  const per = Math.ceil(count / procs);
  const env = { DATABASE_URL: url, BENCH_MODE: "direct", BENCH_CONCURRENCY: String(ctx.concurrency), BENCH_COUNT: String(per) };
  const workers: Child[] = [];
  try {
    for (let i = 0; i < procs; i++) {
      workers.push(spawnTs("bench/procs/dbos-worker.ts", env));
      await waitReady(workers);
    }
    await sleep(200);
    const started = performance.now();
    for (const worker of workers) worker.kill("SIGUSR2");
    await waitFor(() => workers.every((w) => /DONE /.test(w.output())), 180_000, "DBOS direct runs");
    const ms = performance.now() - started;
    return { perSecond: round((per * procs * 1000) / ms, 1), count: per * procs, ms: round(ms, 1) };
  } finally {
    await stopAll(workers);
  }
}

type Case = {
  key: string;
  figure: string;
  unit: string;
  note: string;
  measure: () => Promise<Measured & { commitsPerRun?: number }>;
};

/** Median by value of repeated measurements (rounds interleave the systems, so drift hits all alike). */
function median(values: Measured[]): Measured {
  const sorted = [...values].sort((a, b) => a.perSecond - b.perSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)] as Measured;
}

export async function benchThroughput(
  ctx: BenchContext,
): Promise<{ runifold2PerSecond: number; transitionsPerRun: number; connections2: number }> {
  const count = ctx.quick ? 600 : 5_000;
  const rounds = ctx.quick ? 1 : 3;
  const { report } = ctx;
  const systems = (process.env.BENCH_SYSTEMS ?? "runifold,graphile,dbos").split(",");
  const cases: Case[] = [];
  for (const procs of [1, 2]) {
    if (systems.includes("runifold"))
      cases.push({
        key: `runifold_${procs}`,
        figure: `throughput.runifold.workers_${procs}`,
        unit: "workflows/s",
        note: "one-step runs",
        measure: () => runifoldThroughput(ctx, procs, count),
      });
    if (systems.includes("graphile"))
      cases.push({
        key: `graphile_${procs}`,
        figure: `throughput.graphile_worker.procs_${procs}`,
        unit: "jobs/s",
        note: "no-op jobs",
        measure: () => graphileThroughput(ctx, procs, count),
      });
    if (systems.includes("dbos")) {
      cases.push({
        key: `dbos_queue_${procs}`,
        figure: `throughput.dbos_queue.procs_${procs}`,
        unit: "workflows/s",
        note: "one-step workflows enqueued by a client",
        measure: () => dbosQueueThroughput(ctx, procs, count),
      });
      cases.push({
        key: `dbos_direct_${procs}`,
        figure: `throughput.dbos_direct.procs_${procs}`,
        unit: "workflows/s",
        note: "one-step workflows started in-process",
        measure: () => dbosDirectThroughput(ctx, procs, count),
      });
    }
  }
  const all: Record<string, Measured[]> = {};
  for (let round_ = 1; round_ <= rounds; round_++) {
    for (const c of cases) {
      ctx.log(`throughput round ${round_}/${rounds}: ${c.key}, ${count} runs`);
      const m = await c.measure();
      all[c.key] = [...(all[c.key] ?? []), m];
      ctx.log(`  ${c.key}: ${m.perSecond} ${c.unit}${"commitsPerRun" in m ? ` (${m.commitsPerRun} commits/run)` : ""}`);
    }
  }
  const results: Record<string, Measured> = {};
  for (const c of cases) {
    const runs = all[c.key] ?? [];
    const m = median(runs);
    results[c.key] = m;
    report.figure(c.figure, m.perSecond, c.unit, {
      note: `${m.count} ${c.note}; median of ${runs.map((r) => r.perSecond).join(", ")}`,
    });
  }
  const ratio = (a?: Measured, b?: Measured) => round((a?.perSecond ?? Number.NaN) / (b?.perSecond || Number.NaN), 2);
  if (results.runifold_2 && results.graphile_2)
    report.target("ratio.runifold_2_vs_graphile_worker_2", ratio(results.runifold_2, results.graphile_2), "x", ">=", 0.5);
  if (results.runifold_2 && results.dbos_queue_2)
    report.target(
      "ratio.runifold_2_vs_dbos_queue_2",
      ratio(results.runifold_2, results.dbos_queue_2),
      "x",
      ">=",
      1.0,
      "like-for-like: client enqueue, worker processes dequeue",
    );
  if (results.runifold_2 && results.dbos_direct_2)
    report.figure("ratio.runifold_2_vs_dbos_direct_2", ratio(results.runifold_2, results.dbos_direct_2), "x", {
      note: "DBOS in-process starts: no enqueue, no claim",
    });
  if (results.runifold_1 && results.graphile_1)
    report.figure("ratio.runifold_1_vs_graphile_worker_1", ratio(results.runifold_1, results.graphile_1), "x");
  if (results.runifold_1 && results.dbos_queue_1)
    report.figure("ratio.runifold_1_vs_dbos_queue_1", ratio(results.runifold_1, results.dbos_queue_1), "x");
  report.attach("throughput", all);
  return {
    runifold2PerSecond: results.runifold_2?.perSecond ?? 0,
    transitionsPerRun: 4,
    connections2: 2 * (Math.min(ctx.concurrency, 8) + 1) + ctx.producers,
  };
}
