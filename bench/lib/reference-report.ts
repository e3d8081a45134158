// What the reference section reports per leg (bench/reference-server.ts): each server's loads of one
// kind added up, its figures, CPU per request, and the goal's ratio of Runifold to the reference.

import type { HttpLoadResult } from "./http-load";
import type { LegacyTarget } from "./legacy-session";
import type { Report } from "./report";
import { round } from "./stats";

/** One server's loads of one kind (creation or tasks/get) across the rounds, and the CPU they cost it. */
export type Leg = {
  target: LegacyTarget;
  loads: HttpLoadResult[];
  cpuMs: number;
  /** The same CPU per process tree (Runifold: web, worker, postgres), for the note. */
  cpuByProcess: Record<string, number>;
};

/** Adds one load's CPU readings (CpuMeter.since) of the named trees to the leg. */
export function addCpu(leg: Leg, spent: Record<string, number>, trees: string[]) {
  for (const tree of trees) {
    const ms = spent[tree] ?? Number.NaN;
    leg.cpuMs += ms;
    leg.cpuByProcess[tree] = (leg.cpuByProcess[tree] ?? 0) + ms;
  }
}

/**
 * What one leg's loads add up to: req/s and p50 averaged over rounds, the worst p99, CPU per request
 * (the CPU is read around the whole load, so its warm-up requests are counted beside the recorded ones).
 */
export function totals(leg: Leg) {
  const requests = leg.loads.reduce((sum, load) => sum + load.total, 0);
  const served = requests + leg.loads.reduce((sum, load) => sum + load.warmUpTotal, 0);
  return {
    perSecond: round(leg.loads.reduce((sum, load) => sum + load.perSecond, 0) / leg.loads.length, 1),
    p50: round(leg.loads.reduce((sum, load) => sum + load.p50, 0) / leg.loads.length),
    p99: Math.max(...leg.loads.map((load) => load.p99)),
    requests,
    unexpected: leg.loads.reduce((sum, load) => sum + load.errors + load.timeouts + load.non2xx, 0),
    cpuMsPerRequest: round(leg.cpuMs / served, 3),
    cpuMsPerRequestByProcess: Object.fromEntries(
      Object.entries(leg.cpuByProcess).map(([tree, ms]) => [tree, round(ms / served, 3)]),
    ),
  };
}

export type LegTotals = ReturnType<typeof totals>;

/**
 * Records `<figure>.<server>.*`, `<cpuFigure>.<server>`, the goal `goal` (Runifold ÷ reference req/s) and
 * `<goal>_without_next` (the plain twin ÷ reference).
 */
export function reportLegs(
  r: Report,
  legs: Leg[],
  names: { figure: string; cpuFigure: string; cpuNotes: Record<string, string>; goal: string; load: string },
): Record<string, LegTotals> {
  const all = Object.fromEntries(legs.map((leg) => [leg.target.name, totals(leg)]));
  for (const [name, t] of Object.entries(all)) {
    r.figure(`${names.figure}.${name}.throughput`, t.perSecond, "req/s", {
      note: `${names.load}, ${t.requests} requests, ${t.unexpected} errors/timeouts/non-2xx`,
    });
    r.figure(`${names.figure}.${name}.p50`, t.p50, "ms");
    r.figure(`${names.figure}.${name}.p99`, t.p99, "ms");
    const split = Object.entries(t.cpuMsPerRequestByProcess);
    const perTree = split.length > 1 ? ` (${split.map(([tree, ms]) => `${tree} ${ms}`).join(" + ")} ms)` : "";
    r.figure(`${names.cpuFigure}.${name}`, t.cpuMsPerRequest, "ms", {
      note: `${names.cpuNotes[name] ?? name}${perTree}`,
    });
  }
  const [reference, ours, plain] = [all.reference, all.runifold, all.runifold_plain];
  if (reference && ours)
    r.goal(names.goal, round(ours.perSecond / reference.perSecond, 2), `${ours.perSecond} ÷ ${reference.perSecond} req/s`);
  // Context for the goal: the same handler outside Next against the reference (the product stays in Next).
  if (reference && plain)
    r.figure(`${names.goal}_without_next`, round(plain.perSecond / reference.perSecond, 2), "x", {
      note: `${plain.perSecond} ÷ ${reference.perSecond} req/s: the same handler, database and worker in node:http`,
    });
  return all;
}
