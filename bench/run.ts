// `npm run bench [-- --quick] [-- --only=throughput,latency,claims,mcp,reference,listen,list,physical]`
// Starts the embedded Postgres "bench-pg" (or uses BENCH_DATABASE_URL, an admin URL on which
// databases may be created), runs each benchmark, prints one line per figure and writes
// bench/results/latest.json. Goals (bench/lib/goals.ts) are reported with met/missed, never enforced; a
// section that throws prints `ERROR <section>: …`, and the last line names every failed section and the
// exit code is 1. `npm run bench:docs` then rewrites the figures section of docs/benchmarks.md.
import os from "node:os";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@runifold/store/embedded";
import { benchClaimScale } from "./claim-scale";
import { benchLatency } from "./latency";
import type { BenchContext } from "./lib/context";
import { describeEnvironment } from "./lib/pg";
import { ROOT } from "./lib/procs";
import { Report } from "./lib/report";
import { benchListQuery } from "./list-query";
import { benchListenScale } from "./listen-scale";
import { benchMcpHttp } from "./mcp-http";
import { benchPhysical } from "./physical";
import { benchReferenceServer } from "./reference-server";
import { benchThroughput, type ThroughputSummary } from "./throughput";

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
  const failed: string[] = [];
  const ran = new Set<string>();
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
      runifold_worker: `min(concurrency, 8) + 2 = ${Math.min(ctx.concurrency, 8) + 2} per process, plus 2 for claims and renewals (packages/sdk/src/runtime/worker-cli.ts)`,
      graphile_worker: `concurrency + 2 = ${ctx.concurrency + 2} per process`,
      dbos: `concurrency + 2 = ${ctx.concurrency + 2} per process`,
      producers: `${ctx.producers} parallel loops on a pool of ${ctx.producers}`,
      web: "20 (lib/server/db.ts)",
    });
    report.setting("load_at_start", os.loadavg());

    const steps: [string, () => Promise<unknown>][] = [];
    let throughput: ThroughputSummary | undefined;
    if (wants("throughput"))
      steps.push([
        "throughput",
        async () => {
          // Kept even when some cases failed: the physical section's ratio needs only the Runifold case.
          throughput = await benchThroughput(ctx);
          if (throughput.failures.length) throw new Error(`cases failed: ${throughput.failures.join("; ")}`);
        },
      ]);
    if (wants("latency")) steps.push(["latency", () => benchLatency(ctx)]);
    if (wants("claims")) steps.push(["claims", () => benchClaimScale(ctx)]);
    if (wants("physical")) steps.push(["physical", () => benchPhysical(ctx, throughput)]);
    if (wants("list")) steps.push(["list", () => benchListQuery(ctx)]);
    if (wants("mcp")) steps.push(["mcp", () => benchMcpHttp(ctx)]);
    if (wants("reference")) steps.push(["reference", () => benchReferenceServer(ctx)]);
    if (wants("listen")) steps.push(["listen", () => benchListenScale(ctx)]);
    for (const [name, step] of steps) {
      const started = Date.now();
      ran.add(name);
      try {
        await step();
      } catch (error) {
        failed.push(name);
        report.attach(`${name}.error`, error instanceof Error ? error.message : String(error));
        process.stdout.write(`ERROR ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      }
      log(`${name} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    report.setting("load_at_end", os.loadavg());
  } catch (error) {
    failed.push("setup");
    process.stdout.write(`ERROR setup: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  } finally {
    // Every goal appears in latest.json: one whose section failed or did not run is recorded as missing.
    report.completeGoals((section) =>
      failed.includes(section)
        ? `section ${section} failed`
        : !ran.has(section)
          ? `section ${section} not run (--only)`
          : section === "physical"
            ? "needs the throughput section in the same run"
            : `section ${section} recorded no value`,
    );
    report.setting("failed_sections", failed);
    // A run of some sections (--only) goes to its own file: it must not replace the last run of
    // every section, which `npm run bench:docs` renders.
    const file = report.write(ROOT, only ? "latest-only.json" : "latest.json");
    log(`results written to ${file}`);
    await stop();
  }
  process.stdout.write(failed.length ? `FAILED SECTIONS: ${failed.join(", ")}\n` : "ALL SECTIONS COMPLETED\n");
  process.exit(failed.length ? 1 : 0);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
