// (1) Durable workflows/s end to end: Runifold one-step, 10-step and fan-in workflows vs graphile-worker
// 0.17 no-op jobs (default config and with its batching on) vs DBOS Transact, plus a scaling curve over
// 1, 2 and 4 worker processes. The measurements themselves are in bench/throughput-systems.ts.
import os from "node:os";
import type { BenchContext } from "./lib/context";
import { WIDE_INPUT } from "./lib/shapes";
import { round } from "./lib/stats";
import { MULTI_STEPS } from "./procs/workflows";
import {
  dbosDirectThroughput,
  dbosQueueThroughput,
  graphileThroughput,
  type Measured,
  runifoldThroughput,
} from "./throughput-systems";

type Case = { key: string; figure: string; unit: string; note: string; measure: () => Promise<Measured> };

/** Median by value of repeated measurements (rounds interleave the systems, so drift hits all alike). */
function median(values: Measured[]): Measured {
  const sorted = [...values].sort((a, b) => a.perSecond - b.perSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)] as Measured;
}

export type ThroughputSummary = {
  runifold2PerSecond: number;
  transitionsPerRun: number;
  connections2: number;
  /** Measured commits per one-step run in the 2-worker case (pg_stat_database.xact_commit). */
  commitsPerRun2: number;
  /** Cases that failed; bench/run.ts fails the section on them after physical has its input. */
  failures: string[];
};

function cases(ctx: BenchContext, count: number): Case[] {
  const systems = (process.env.BENCH_SYSTEMS ?? "runifold,graphile,dbos").split(",");
  // The multi-step shapes write ~10× as much per run: a quarter of the runs keeps their time near the others'.
  const multi = Math.max(50, Math.floor(count / 4));
  const list: Case[] = [];
  const scaling = (process.env.BENCH_SCALING ?? "1,2,4").split(",").map(Number);
  for (const procs of scaling) {
    if (systems.includes("runifold"))
      list.push({
        key: `runifold_${procs}`,
        figure: `throughput.runifold.workers_${procs}`,
        unit: "workflows/s",
        note: "one-step runs",
        measure: () => runifoldThroughput(ctx, procs, count),
      });
    if (systems.includes("graphile"))
      list.push({
        key: `graphile_${procs}`,
        figure: `throughput.graphile_worker.procs_${procs}`,
        unit: "jobs/s",
        note: "no-op jobs, default config",
        measure: () => graphileThroughput(ctx, procs, count),
      });
  }
  if (systems.includes("graphile"))
    list.push({
      key: "graphile_batched_2",
      figure: "throughput.graphile_worker_batched.procs_2",
      unit: "jobs/s",
      note: "no-op jobs, localQueue 2×concurrency, completeJobBatchDelay 0",
      measure: () => graphileThroughput(ctx, 2, count, true),
    });
  if (systems.includes("runifold")) {
    // Realistic runs beside the `{}` ones the comparison with graphile-worker uses (its jobs carry none).
    list.push({
      key: "runifold_2_input_200",
      figure: "throughput.runifold.input_200_fields.workers_2",
      unit: "workflows/s",
      note: "one-step runs with a 200-field input (4.6 KB), one tenant",
      measure: () => runifoldThroughput(ctx, 2, count, "bench-noop", { label: "200 fields", input: WIDE_INPUT, tenants: 1 }),
    });
    list.push({
      key: "runifold_2_tenants_1000",
      figure: "throughput.runifold.tenants_1000.workers_2",
      unit: "workflows/s",
      note: "one-step runs with a 200-field input, round robin over 1,000 tenants that each also hold a run asleep until tomorrow",
      measure: () =>
        runifoldThroughput(ctx, 2, count, "bench-noop", { label: "1,000 tenants", input: WIDE_INPUT, tenants: 1_000 }),
    });
    list.push({
      key: "runifold_steps_2",
      figure: `throughput.runifold.steps_${MULTI_STEPS}.workers_2`,
      unit: "workflows/s",
      note: `${MULTI_STEPS} sequential no-op steps per run`,
      measure: () => runifoldThroughput(ctx, 2, multi, "bench-steps"),
    });
    list.push({
      key: "runifold_fan_in_2",
      figure: `throughput.runifold.fan_in_${MULTI_STEPS}.workers_2`,
      unit: "workflows/s",
      note: `${MULTI_STEPS} no-op steps in Promise.all, then a join step`,
      measure: () => runifoldThroughput(ctx, 2, multi, "bench-fan-in"),
    });
  }
  // DBOS is context, not a goal, and its first launch per database creates its schema (~20 s a case
  // here): quick mode leaves it out to stay under 3 minutes; full mode runs queue and direct at 1 and 2.
  for (const procs of ctx.quick ? [] : [1, 2]) {
    if (!systems.includes("dbos")) continue;
    list.push({
      key: `dbos_queue_${procs}`,
      figure: `throughput.dbos_queue.procs_${procs}`,
      unit: "workflows/s",
      note: "one-step workflows enqueued by a client",
      measure: () => dbosQueueThroughput(ctx, procs, count),
    });
    list.push({
      key: `dbos_direct_${procs}`,
      figure: `throughput.dbos_direct.procs_${procs}`,
      unit: "workflows/s",
      note: "one-step workflows started in-process",
      measure: () => dbosDirectThroughput(ctx, procs, count),
    });
  }
  return list;
}

export async function benchThroughput(ctx: BenchContext): Promise<ThroughputSummary> {
  const count = ctx.quick ? 600 : 5_000;
  const rounds = ctx.quick ? 1 : 3;
  const { report } = ctx;
  const list = cases(ctx, count);
  const all: Record<string, Measured[]> = {};
  const failures: string[] = [];
  for (let round_ = 1; round_ <= rounds; round_++) {
    for (const c of list) {
      ctx.log(`throughput round ${round_}/${rounds}: ${c.key}`);
      // One failing system must not cost the others' figures: record it and go on; the section fails at the end.
      const started = performance.now();
      try {
        const m = await c.measure();
        all[c.key] = [...(all[c.key] ?? []), m];
        const took = `case ${((performance.now() - started) / 1000).toFixed(1)} s`;
        ctx.log(`  ${c.key}: ${m.perSecond} ${c.unit}${m.commitsPerRun ? ` (${m.commitsPerRun} commits/run)` : ""}, ${took}`);
      } catch (error) {
        failures.push(`${c.key}: ${error instanceof Error ? error.message : String(error)}`);
        ctx.log(`  ${c.key} FAILED: ${failures.at(-1)}`);
      }
    }
  }
  const results: Record<string, Measured> = {};
  for (const c of list) {
    const runs = all[c.key] ?? [];
    if (runs.length === 0) {
      report.missing(c.figure, c.unit, "measurement failed (see throughput.failures)");
      continue;
    }
    const m = median(runs);
    results[c.key] = m;
    const commits = m.commitsPerRun ? `, ${m.commitsPerRun} commits/run` : "";
    report.figure(c.figure, m.perSecond, c.unit, {
      note: `${m.count} ${c.note}; median of ${runs.map((r) => r.perSecond).join(", ")}${commits}`,
    });
    const cpu = runs.map((r) => r.cpuMsPerRun).filter((ms): ms is number => ms !== undefined);
    if (cpu.length > 0)
      report.figure(`cpu.per_run.${c.key}`, cpu.sort((a, b) => a - b)[Math.floor(cpu.length / 2)] as number, "ms", {
        note: "worker processes + PostgreSQL CPU (user + system, /proc) per run, median of the rounds; the producers' JavaScript not counted",
      });
  }
  recordRatios(ctx, results);
  report.attach("throughput", { rounds: all, failures });
  return {
    failures,
    runifold2PerSecond: results.runifold_2?.perSecond ?? Number.NaN,
    commitsPerRun2: results.runifold_2?.commitsPerRun ?? Number.NaN,
    transitionsPerRun: 4,
    connections2: 2 * (Math.min(ctx.concurrency, 8) + 1) + ctx.producers,
  };
}

function recordRatios(ctx: BenchContext, results: Record<string, Measured>) {
  const { report } = ctx;
  const ratio = (a?: Measured, b?: Measured, times = 1) =>
    round(((a?.perSecond ?? Number.NaN) / (b?.perSecond || Number.NaN)) * times, 2);
  const r = results;
  report.goal("ratio.runifold_2_vs_graphile_default_2", ratio(r.runifold_2, r.graphile_2));
  report.goal("ratio.runifold_2_vs_graphile_batched_2", ratio(r.runifold_2, r.graphile_batched_2));
  report.goal(
    "ratio.runifold_10_step_vs_graphile_default_x10",
    ratio(r.runifold_steps_2, r.graphile_2, MULTI_STEPS),
    `(${MULTI_STEPS}-step workflows/s × ${MULTI_STEPS}) ÷ graphile jobs/s: a step against a job`,
  );
  report.figure("ratio.runifold_fan_in_vs_graphile_default_x10", ratio(r.runifold_fan_in_2, r.graphile_2, MULTI_STEPS), "x", {
    note: `(fan-in workflows/s × ${MULTI_STEPS}) ÷ graphile jobs/s; the join step not counted`,
  });
  report.figure("ratio.runifold_1_vs_graphile_default_1", ratio(r.runifold_1, r.graphile_1), "x");
  report.figure("ratio.runifold_input_200_vs_empty_2", ratio(r.runifold_2_input_200, r.runifold_2), "x", {
    note: "one-step workflows/s with a 200-field input ÷ with `{}`, 2 processes, one tenant",
  });
  report.figure("ratio.runifold_tenants_1000_vs_one_2", ratio(r.runifold_2_tenants_1000, r.runifold_2_input_200), "x", {
    note: "the same input over 1,000 tenants (each holding a parked run) ÷ one tenant, 2 processes",
  });
  report.figure("ratio.runifold_4_vs_graphile_default_4", ratio(r.runifold_4, r.graphile_4), "x");
  if (r.dbos_queue_2) report.figure("ratio.runifold_2_vs_dbos_queue_2", ratio(r.runifold_2, r.dbos_queue_2), "x");
  if (r.dbos_direct_2) report.figure("ratio.runifold_2_vs_dbos_direct_2", ratio(r.runifold_2, r.dbos_direct_2), "x");
  // The scaling curve: throughput at N processes over 1, next to the cores the processes share.
  const cpus = os.availableParallelism();
  report.setting("available_parallelism", cpus);
  for (const system of ["runifold", "graphile"] as const)
    for (const procs of [2, 4])
      report.figure(`scaling.${system}.procs_${procs}_vs_1`, ratio(r[`${system}_${procs}`], r[`${system}_1`]), "x", {
        note: `${procs} worker processes ÷ 1, on ${cpus} CPUs`,
      });
  report.attach("scaling", {
    availableParallelism: cpus,
    runifold: Object.fromEntries([1, 2, 4].map((p) => [p, r[`runifold_${p}`]?.perSecond ?? null])),
    graphile: Object.fromEntries([1, 2, 4].map((p) => [p, r[`graphile_${p}`]?.perSecond ?? null])),
  });
}
