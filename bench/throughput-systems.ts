// One measurement per call for bench/throughput.ts: Runifold (any bench workflow), graphile-worker 0.17
// (default or batched) and DBOS Transact (queue or direct), each on its own fresh database on the same
// server, same producer shape (P parallel loops, one create per round trip), same per-process concurrency.
import { existsSync } from "node:fs";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { createRun } from "@runifold/sdk";
import { migrate } from "@runifold/store";
import { makeWorkerUtils, runMigrations } from "graphile-worker";
import postgres from "postgres";
import { type BenchContext, TENANT } from "./lib/context";
import { CpuMeter, postmasterPid } from "./lib/cpu";
import { recreateDatabase, recreateFromTemplate } from "./lib/pg";
import { type Child, inParallel, readResult, spawnTs, spawnWithResult, stopAll, waitFor } from "./lib/procs";
import { ONE_TENANT_EMPTY, type RunShape, tenantsFor } from "./lib/shapes";
import { round, sleep } from "./lib/stats";

export type Measured = {
  perSecond: number;
  count: number;
  ms: number;
  commitsPerRun?: number;
  /** CPU of the worker processes and the PostgreSQL server (postmaster tree) per run, from /proc (bench/lib/cpu.ts). */
  cpuMsPerRun?: number;
};

/** Worker and database CPU over `measure`, per run: the producers' own JavaScript is the bench's, not counted. */
async function withCpu(sql: postgres.Sql, workers: Child[], measure: () => Promise<Measured>): Promise<Measured> {
  const roots: Record<string, number | undefined> = { postgres: await postmasterPid(sql) };
  workers.forEach((worker, i) => {
    roots[`worker${i}`] = worker.pid;
  });
  const meter = new CpuMeter(roots);
  const before = meter.read();
  const measured = await measure();
  const spent = Object.values(meter.since(before)).reduce((sum, ms) => sum + ms, 0);
  return { ...measured, cpuMsPerRun: round(spent / measured.count, 3) };
}

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

/** The engine database every Runifold case starts from: migrated, with the bench tenant. */
async function prepareEngine(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrate(sql);
    await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'bench', 'Bench')`;
  } finally {
    await sql.end();
  }
}

async function prepareGraphile(url: string) {
  await runMigrations({ connectionString: url });
}

export async function runifoldThroughput(
  ctx: BenchContext,
  procs: number,
  count: number,
  workflow = "bench-noop",
  shape: RunShape = ONE_TENANT_EMPTY,
) {
  const url = await recreateFromTemplate(ctx.adminUrl, "bench_engine", prepareEngine);
  const sql = postgres(url, { max: ctx.producers, onnotice: () => {} });
  try {
    const tenants = await tenantsFor(sql, shape, TENANT, `${workflow}@1`);
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
      const create = (n: number) =>
        createRun(sql, {
          tenantId: tenants[n % tenants.length] as string,
          workflowName: workflow,
          workflowVersion: 1,
          input: shape.input,
        }).then(() => {});
      // Done = nothing live left once every run is created: the count walks runs_live_status_idx, which
      // shrinks as runs finish (like graphile-worker's jobs table), not a scan of every finished run
      // every 10 ms that would grow with the case and take CPU from the system under test. Planned on
      // every call (not prepared): a plan kept from the warm-up's 50 rows would scan the table.
      // The parked runs of a many-tenant shape stay asleep (until tomorrow): not counted.
      const live = async () =>
        Number(
          (
            await sql.unsafe(
              "SELECT count(*) AS n FROM runs WHERE status IN ('queued', 'leased', 'waiting_signal', 'waiting_input')",
              [],
              { prepare: false },
            )
          )[0]?.n,
        );
      await inParallel(50, ctx.producers, create); // warm-up: connections, plans, JIT
      await waitFor(async () => (await live()) === 0, 60_000, "warm-up");
      const commits = async () =>
        Number((await sql`SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`)[0]?.xact_commit);
      const before = await commits();
      const measured = await withCpu(sql, workers, () =>
        timeRun(
          count,
          () => inParallel(count, ctx.producers, create),
          async () => (await live()) === 0,
        ),
      );
      await sleep(1_100); // backends flush their statistics about once a second
      const commitsPerRun = round(((await commits()) - before) / count, 2);
      const failed = Number((await sql`SELECT count(*) AS n FROM runs WHERE status NOT IN ('completed', 'sleeping')`)[0]?.n);
      if (failed > 0) throw new Error(`${failed} bench runs did not complete`);
      return { ...measured, commitsPerRun };
    } finally {
      await stopAll(workers);
    }
  } finally {
    await sql.end();
  }
}

export async function graphileThroughput(ctx: BenchContext, procs: number, count: number, batched = false) {
  const url = await recreateFromTemplate(ctx.adminUrl, "bench_graphile", prepareGraphile);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const utils = await makeWorkerUtils({ connectionString: url, maxPoolSize: ctx.producers });
  const env = { DATABASE_URL: url, BENCH_CONCURRENCY: String(ctx.concurrency), BENCH_GRAPHILE_BATCHED: batched ? "1" : "0" };
  const workers = Array.from({ length: procs }, () => spawnTs("bench/procs/graphile-worker.ts", env));
  try {
    await waitReady(workers);
    const add = () => utils.addJob("noop", {}).then(() => {});
    const remaining = async () => Number((await sql`SELECT count(*) AS n FROM graphile_worker._private_jobs`)[0]?.n);
    await inParallel(50, ctx.producers, add);
    await waitFor(async () => (await remaining()) === 0, 60_000, "warm-up");
    return await withCpu(sql, workers, () =>
      timeRun(
        count,
        () => inParallel(count, ctx.producers, add),
        async () => (await remaining()) === 0,
      ),
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
  const workers: { child: Child; file: string }[] = [];
  try {
    for (let i = 0; i < procs; i++) {
      workers.push(spawnWithResult("bench/procs/dbos-worker.ts", env, "dbos-direct"));
      await waitReady(workers.map((w) => w.child));
    }
    await sleep(200);
    const started = performance.now();
    for (const { child } of workers) child.kill("SIGUSR2");
    const doneOrExited = () => workers.every((w) => existsSync(w.file) || w.child.exitCode !== null);
    await waitFor(doneOrExited, 180_000, "DBOS direct runs");
    const ms = performance.now() - started;
    for (const w of workers) readResult<{ ms: number }>(w.child, w.file, "DBOS direct worker"); // throws on a failed child
    return { perSecond: round((per * procs * 1000) / ms, 1), count: per * procs, ms: round(ms, 1) };
  } finally {
    await stopAll(workers.map((w) => w.child));
  }
}
