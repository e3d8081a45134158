// Sustained HTTP load for bench/mcp-http.ts: autocannon (a maintained load generator, used as a library)
// in its own process, so the load generator's CPU is not the bench's or the server's event loop.
// BENCH_HTTP_SPEC (JSON): { url, connections, seconds, requests: [{ method, headers, body }], freshIds?, check? }.
// check "task-status" / "task-created": before and after the load, one fetch of the first request must
// answer a JSON-RPC result with a task status / a CreateTaskResult (autocannon counts status codes only,
// and a JSON-RPC error — a refused creation, say — is a 200).
// Writes req/s, latency percentiles, errors and status codes to BENCH_RESULT_FILE.
import autocannon from "autocannon";
import type { HttpLoadSpec, LoadRequest } from "../lib/http-load-spec";
import { jsonRpcAnswer } from "../lib/json-rpc-body";
import { writeFailure, writeResult } from "../lib/result-file";

const spec = JSON.parse(process.env.BENCH_HTTP_SPEC ?? "{}") as HttpLoadSpec;

async function check() {
  const first = spec.requests[0] as LoadRequest;
  // A fresh id: a session-keeping server maps answers by id, and the load's own ids count from 1.
  const response = await fetch(spec.url, { ...first, body: first.body.replace(/"id":\d+/, '"id":"check"') });
  const body = await jsonRpcAnswer(response);
  const result = body.result as { status?: unknown; task?: { taskId?: unknown } } | undefined;
  const ok = spec.check === "task-created" ? typeof result?.task?.taskId === "string" : result?.status !== undefined;
  if (!ok) throw new Error(`${spec.check} check answered ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
}

try {
  if (spec.check) await check();
  // Request methods arrive as plain strings from the parent's JSON; autocannon types them as a union.
  let nextId = 1;
  const requests = (
    spec.freshIds
      ? spec.requests.map((request) => ({
          ...request,
          setupRequest: (req: autocannon.Request) => ({ ...req, body: request.body.replace(/"id":\d+/, `"id":${nextId++}`) }),
        }))
      : spec.requests
  ) as autocannon.Request[];
  const options = { url: spec.url, connections: spec.connections, pipelining: 1, requests };
  // Warm-up (JIT, pools, prepared statements), not recorded: one second at the same concurrency.
  const warmUp = await autocannon({ ...options, duration: 1 });
  const r = await autocannon({ ...options, duration: spec.seconds });
  if (spec.check) await check();
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
  writeResult({
    perSecond: r.duration > 0 ? r.requests.total / r.duration : Number.NaN,
    averagePerSecond: r.requests.average,
    total: r.requests.total,
    warmUpTotal: warmUp.requests.total,
    seconds: r.duration,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    statusCodes,
  });
} catch (error) {
  writeFailure(error);
  process.exitCode = 1;
}
