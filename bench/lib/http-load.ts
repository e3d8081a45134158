// The parent's side of a sustained autocannon load: one run of bench/procs/http-load.ts in its own
// process, its figures back through a result file.

import type { HttpLoadSpec } from "./http-load-spec";
import { awaitResult, type Child, spawnWithResult } from "./procs";

export type HttpLoadResult = {
  perSecond: number;
  total: number;
  /** Requests of the unrecorded one-second warm-up before the load: they cost the server CPU too. */
  warmUpTotal: number;
  seconds: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
};

export async function httpLoad(children: Child[], spec: HttpLoadSpec): Promise<HttpLoadResult> {
  const load = spawnWithResult("bench/procs/http-load.ts", { BENCH_HTTP_SPEC: JSON.stringify(spec) }, "http-load");
  children.push(load.child);
  return awaitResult<HttpLoadResult>(load.child, load.file, (spec.seconds + 60) * 1000, "autocannon load process");
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * Rounds of the same load as one: req/s, p50 and p99 the median round's (an odd number of rounds
 * keeps each a measured value), counts and seconds summed over every round.
 */
export function medianLoad(rounds: HttpLoadResult[]): HttpLoadResult & { rounds: number } {
  const sum = (pick: (load: HttpLoadResult) => number) => rounds.reduce((total, load) => total + pick(load), 0);
  const statusCodes: Record<string, number> = {};
  for (const load of rounds)
    for (const [code, count] of Object.entries(load.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  return {
    rounds: rounds.length,
    perSecond: median(rounds.map((load) => load.perSecond)),
    p50: median(rounds.map((load) => load.p50)),
    p99: median(rounds.map((load) => load.p99)),
    total: sum((load) => load.total),
    warmUpTotal: sum((load) => load.warmUpTotal),
    seconds: Math.round(sum((load) => load.seconds) * 100) / 100,
    errors: sum((load) => load.errors),
    timeouts: sum((load) => load.timeouts),
    non2xx: sum((load) => load.non2xx),
    statusCodes,
  };
}
