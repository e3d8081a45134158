// The parent's side of a sustained autocannon load: one run of bench/procs/http-load.ts in its own
// process, its figures back through a result file.

import type { HttpLoadSpec } from "./http-load-spec";
import { awaitResult, type Child, spawnWithResult } from "./procs";

export type HttpLoadResult = {
  perSecond: number;
  total: number;
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
