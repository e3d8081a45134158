// `npm run bench [-- --quick] [-- --only=throughput,latency,mcp,list,physical]`
// Starts the embedded Postgres "bench-pg" (or uses BENCH_DATABASE_URL, an admin URL on which
// databases may be created), runs each benchmark, prints one line per figure and writes
// bench/results/latest.json. Targets are reported, never enforced (exit code 0 unless a bench crashed).
import os from "node:os";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../db/embedded/embedded-postgres";
import { benchLatency } from "./latency";
import type { BenchContext } from "./lib/context";
import { describeEnvironment } from "./lib/pg";
import { ROOT } from "./lib/procs";
import { Report } from "./lib/report";
import { benchListQuery } from "./list-query";
import { benchMcpHttp } from "./mcp-http";
import { benchPhysical } from "./physical";
import { benchThroughput } from "./throughput";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",");
const wants = (name: string) => !only || only.includes(name);
const log = (line: string) => process.stdout.write(`# ${line}\n`);

async function main() {
  const report = new Report();
  let embedded: EmbeddedPostgres | undefined;
  let adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) {
    log("starting embedded PostgreSQL (bench-pg)");
    embedded = await startEmbeddedPostgres({ projectRoot: ROOT, name: "bench-pg", log });
    adminUrl = embedded.url;
  }
  const stop = async () => embedded?.stop();
  process.once("SIGINT", () => void stop().finally(() => process.exit(130)));
  let failed = false;
  try {
    const env = await describeEnvironment(adminUrl);
    const ctx: BenchContext = {
      adminUrl,
      report,
      quick,
      concurrency: Number(process.env.BENCH_CONCURRENCY ?? 16),
      producers: Number(process.env.BENCH_PRODUCERS ?? 8),
      log,
    };
    report.setting("mode", quick ? "quick" : "full");
    report.setting("machine", env.machine);
    report.setting("postgres", { ...env.postgres, server: embedded ? "embedded (bench-pg)" : "BENCH_DATABASE_URL" });
    report.setting("worker_concurrency_per_process", ctx.concurrency);
    report.setting("pools", {
      runifold_worker: `min(concurrency, 8) + 2 = ${Math.min(ctx.concurrency, 8) + 2} per process (workers/run-worker-process.ts)`,
      graphile_worker: `concurrency + 2 = ${ctx.concurrency + 2} per process`,
      dbos: `concurrency + 2 = ${ctx.concurrency + 2} per process`,
      producers: `${ctx.producers} parallel loops on a pool of ${ctx.producers}`,
      web: "20 (lib/server/db.ts)",
    });
    report.setting("load_at_start", os.loadavg());

    const steps: [string, () => Promise<unknown>][] = [];
    let throughput: Awaited<ReturnType<typeof benchThroughput>> | undefined;
    if (wants("throughput")) steps.push(["throughput", async () => (throughput = await benchThroughput(ctx))]);
    if (wants("latency")) steps.push(["latency", () => benchLatency(ctx)]);
    if (wants("physical")) steps.push(["physical", () => benchPhysical(ctx, throughput)]);
    if (wants("list")) steps.push(["list", () => benchListQuery(ctx)]);
    if (wants("mcp")) steps.push(["mcp", () => benchMcpHttp(ctx)]);
    for (const [name, step] of steps) {
      const started = Date.now();
      try {
        await step();
      } catch (error) {
        failed = true;
        report.attach(`${name}.error`, error instanceof Error ? error.message : String(error));
        process.stdout.write(`ERROR ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      }
      log(`${name} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    report.setting("load_at_end", os.loadavg());
  } finally {
    const file = report.write(ROOT);
    log(`results written to ${file}`);
    await stop();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
