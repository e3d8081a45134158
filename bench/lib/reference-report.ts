// What the reference section reports per leg (bench/reference-server.ts): each server's loads of one
// kind added up, its figures, CPU per request, and the goal's ratio of Runifold to the reference.

import type { HttpLoadResult } from "./http-load";
import type { LegacyTarget } from "./legacy-session";
import type { Report } from "./report";
import { round } from "./stats";

/** One server's loads of one kind (creation or tasks/get) across the rounds, and the CPU they cost it. */
export type Leg = { target: LegacyTarget; loads: HttpLoadResult[]; cpuMs: number };

/** What one leg's loads add up to: req/s and p50 averaged over rounds, the worst p99, CPU per request. */
export function totals(leg: Leg) {
  const requests = leg.loads.reduce((sum, load) => sum + load.total, 0);
  return {
    perSecond: round(leg.loads.reduce((sum, load) => sum + load.perSecond, 0) / leg.loads.length, 1),
    p50: round(leg.loads.reduce((sum, load) => sum + load.p50, 0) / leg.loads.length),
    p99: Math.max(...leg.loads.map((load) => load.p99)),
    requests,
    unexpected: leg.loads.reduce((sum, load) => sum + load.errors + load.timeouts + load.non2xx, 0),
    cpuMsPerRequest: round(leg.cpuMs / requests, 3),
  };
}

export type LegTotals = ReturnType<typeof totals>;

/** Records `<figure>.<server>.*`, `<cpuFigure>.<server>` and the goal `goal` (Runifold ÷ reference req/s). */
export function reportLegs(
  r: Report,
  legs: Leg[],
  names: { figure: string; cpuFigure: string; cpuNotes: { runifold: string; reference: string }; goal: string; load: string },
): Record<string, LegTotals> {
  const all = Object.fromEntries(legs.map((leg) => [leg.target.name, totals(leg)]));
  for (const [name, t] of Object.entries(all)) {
    r.figure(`${names.figure}.${name}.throughput`, t.perSecond, "req/s", {
      note: `${names.load}, ${t.requests} requests, ${t.unexpected} errors/timeouts/non-2xx`,
    });
    r.figure(`${names.figure}.${name}.p50`, t.p50, "ms");
    r.figure(`${names.figure}.${name}.p99`, t.p99, "ms");
    r.figure(`${names.cpuFigure}.${name}`, t.cpuMsPerRequest, "ms", {
      note: name === "runifold" ? names.cpuNotes.runifold : names.cpuNotes.reference,
    });
  }
  const [reference, ours] = [all.reference, all.runifold];
  if (reference && ours)
    r.goal(names.goal, round(ours.perSecond / reference.perSecond, 2), `${ours.perSecond} ÷ ${reference.perSecond} req/s`);
  return all;
}
