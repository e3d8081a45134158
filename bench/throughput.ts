// (1) Durable one-step workflows/s end to end: Runifold (1 and 2 worker processes) vs graphile-worker
// 0.17 no-op jobs/s vs DBOS Transact one-step workflows/s, same server, separate databases, same
// producer shape (P parallel loops, one create per round trip) and the same per-process concurrency.
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { makeWorkerUtils, runMigrations } from "graphile-worker";
import postgres from "postgres";
import { migrate } from "../db/migrate";
import { createRun } from "../lib/engine/ops/create-run";
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

export async function runifoldThroughput(ctx: BenchContext, procs: number, count: number): Promise<Measured & { transitionsPerRun: number }> {
  const url = await recreateDatabase(ctx.adminUrl, "bench_engine");
  const sql = postgres(url, { max: ctx.producers, onnotice: () => {} });
  try {
    await migrate(sql);
    await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'bench', 'Bench')`;
    const env = { DATABASE_URL: url, RUNIFOLD_WORKER_CONCURRENCY: String(ctx.concurrency), RUNIFOLD_POLL_MS: "1000", RUNIFOLD_LEASE_MS: "30000" };
    const workers = Array.from({ length: procs }, () => spawnTs("bench/procs/engine-worker.ts", env));
    try {
      await waitFor(async () => Number((await sql`SELECT count(*) AS n FROM worker_registrations WHERE stopped_at IS NULL`)[0]?.n) === procs, 60_000, "workers registered");
      const create = () => createRun(sql, { tenantId: TENANT, workflowName: "bench-noop", workflowVersion: 1, input: {} }).then(() => {});
      const completed = async () => Number((await sql`SELECT count(*) AS n FROM runs WHERE status = 'completed'`)[0]?.n);
      await inParallel(50, ctx.producers, create); // warm-up: connections, plans, JIT
      await waitFor(async () => (await completed()) === 50, 60_000, "warm-up");
      const measured = await timeRun(count, () => inParallel(count, ctx.producers, create), async () => (await completed()) === count + 50);
      const failed = Number((await sql`SELECT count(*) AS n FROM runs WHERE status <> 'completed'`)[0]?.n);
      if (failed > 0) throw new Error(`${failed} bench runs did not complete`);
      // Durable write transactions per run: create, claim (lease), step checkpoint, terminal.
      return { ...measured, transitionsPerRun: 4 };
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
  const workers = Array.from({ length: procs }, () => spawnTs("bench/procs/graphile-worker.ts", { DATABASE_URL: url, BENCH_CONCURRENCY: String(ctx.concurrency) }));
  try {
    await waitReady(workers);
    const add = () => utils.addJob("noop", {}).then(() => {});
    const remaining = async () => Number((await sql`SELECT count(*) AS n FROM graphile_worker._private_jobs`)[0]?.n);
    await inParallel(50, ctx.producers, add);
    await waitFor(async () => (await remaining()) === 0, 60_000, "warm-up");
    return await timeRun(count, () => inParallel(count, ctx.producers, add), async () => (await remaining()) === 0);
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
    client = await DBOSClient.create({ systemDatabaseUrl: url, systemDatabasePoolSize: ctx.producers, applicationName: "runifold-bench" });
    const enqueue = () => (client as DBOSClient).enqueue({ queueName: "bench", workflowName: "benchNoop" }).then(() => {});
    const succeeded = async () => Number((await sql`SELECT count(*) AS n FROM dbos.workflow_status WHERE status = 'SUCCESS'`)[0]?.n);
    await inParallel(50, ctx.producers, enqueue);
    await waitFor(async () => (await succeeded()) === 50, 60_000, "warm-up");
    return await timeRun(count, () => inParallel(count, ctx.producers, enqueue), async () => (await succeeded()) === count + 50);
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

export async function benchThroughput(ctx: BenchContext): Promise<{ runifold2PerSecond: number; transitionsPerRun: number }> {
  const count = ctx.quick ? 1_000 : 5_000;
  const { report } = ctx;
  const results: Record<string, Measured> = {};
  let transitionsPerRun = 4;
  const systems = (process.env.BENCH_SYSTEMS ?? "runifold,graphile,dbos").split(",");
  for (const procs of systems.includes("runifold") ? [1, 2] : []) {
    ctx.log(`throughput: runifold, ${procs} worker process(es), ${count} runs`);
    const r = await runifoldThroughput(ctx, procs, count);
    transitionsPerRun = r.transitionsPerRun;
    results[`runifold_${procs}`] = r;
    report.figure(`throughput.runifold.workers_${procs}`, r.perSecond, "workflows/s", { note: `${r.count} one-step runs in ${r.ms} ms` });
  }
  for (const procs of systems.includes("graphile") ? [1, 2] : []) {
    ctx.log(`throughput: graphile-worker, ${procs} process(es)`);
    const g = await graphileThroughput(ctx, procs, count);
    results[`graphile_${procs}`] = g;
    report.figure(`throughput.graphile_worker.procs_${procs}`, g.perSecond, "jobs/s", { note: `${g.count} no-op jobs in ${g.ms} ms` });
  }
  for (const procs of systems.includes("dbos") ? [1, 2] : []) {
    ctx.log(`throughput: DBOS queue, ${procs} process(es)`);
    const d = await dbosQueueThroughput(ctx, procs, count);
    results[`dbos_queue_${procs}`] = d;
    report.figure(`throughput.dbos_queue.procs_${procs}`, d.perSecond, "workflows/s", { note: `${d.count} one-step workflows enqueued by a client, in ${d.ms} ms` });
    ctx.log(`throughput: DBOS direct, ${procs} process(es)`);
    const dd = await dbosDirectThroughput(ctx, procs, count);
    results[`dbos_direct_${procs}`] = dd;
    report.figure(`throughput.dbos_direct.procs_${procs}`, dd.perSecond, "workflows/s", { note: `${dd.count} one-step workflows started in-process, in ${dd.ms} ms` });
  }
  const ours = results.runifold_2?.perSecond ?? 0;
  const ratio = (other?: Measured) => round(ours / (other?.perSecond || Number.NaN), 2);
  report.target("ratio.runifold_2_vs_graphile_worker_2", ratio(results.graphile_2), "x", ">=", 0.5);
  report.target("ratio.runifold_2_vs_dbos_queue_2", ratio(results.dbos_queue_2), "x", ">=", 1.0, "like-for-like: client enqueue, worker processes dequeue");
  report.figure("ratio.runifold_2_vs_dbos_direct_2", ratio(results.dbos_direct_2), "x", { note: "DBOS in-process starts: no enqueue, no claim" });
  report.figure("ratio.runifold_1_vs_graphile_worker_1", round((results.runifold_1?.perSecond ?? 0) / (results.graphile_1?.perSecond || Number.NaN), 2), "x");
  report.figure("ratio.runifold_1_vs_dbos_queue_1", round((results.runifold_1?.perSecond ?? 0) / (results.dbos_queue_1?.perSecond || Number.NaN), 2), "x");
  report.attach("throughput", results);
  return { runifold2PerSecond: ours, transitionsPerRun };
}
