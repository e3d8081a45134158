// The sequential load process for bench/mcp-http.ts: a separate Node process on loopback speaking the
// modern (2026-07-28) wire to the production build: tools/call → CreateTaskResult latency (and the
// bare route's, its floor) and listen latency, one request at a time, fixed counts. Writes its samples
// (and the created task IDs, which the tasks/get load reuses) to BENCH_RESULT_FILE; sustained load is
// bench/procs/http-load.ts (autocannon).

import { cancelRunAsAdmin } from "@runifold/sdk";
import postgres from "postgres";
import { modernRequest, TASKS_ONLY } from "../../tests/helpers/mcp-envelope";
import { sseMessages } from "../../tests/helpers/sse";
import { writeFailure, writeResult } from "../lib/result-file";

const url = process.env.BENCH_MCP_URL ?? "";
const token = process.env.BENCH_TOKEN ?? "";
const creates = Number(process.env.BENCH_CREATES ?? 200);
const listens = Number(process.env.BENCH_LISTENS ?? 50);

// The requests tests/helpers/mcp-envelope.ts frames for the tests (tasks extension only, as bench/mcp-http.ts sends tasks/get).
const envelope = (method: string, params: Record<string, unknown>) =>
  modernRequest(method, params, { token, capabilities: TASKS_ONLY });

async function call(method: string, params: Record<string, unknown>) {
  const response = await fetch(url, envelope(method, params));
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: { message: string } };
  if (response.status >= 500 || body.error) throw new Error(`${method}: ${response.status} ${body.error?.message ?? ""}`);
  return body.result ?? {};
}

const createTask = async (seconds: number) =>
  (await call("tools/call", { name: "slow_compute", arguments: { seconds } })).taskId as string;

async function measureCreates() {
  for (let i = 0; i < 30; i++) await createTask(0); // warm-up: JIT, pools, prepared plans
  const times: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < creates; i++) {
    const t0 = performance.now();
    ids.push(await createTask(0));
    times.push(performance.now() - t0);
  }
  return { times, ids };
}

/** state change (a cancel committed by SQL) → notifications/tasks with the new status at this client. */
async function measureListen(sql: postgres.Sql) {
  const times: number[] = [];
  for (let i = 0; i < listens + 3; i++) {
    const taskId = await createTask(3_600);
    const response = await fetch(url, envelope("subscriptions/listen", { notifications: { taskIds: [taskId] } }));
    let t0 = 0;
    let sawSnapshot = false;
    let latency = Number.NaN;
    const deadline = Date.now() + 15_000;
    // Leaving the loop cancels the stream (sseMessages).
    for await (const message of sseMessages(response)) {
      if (message.method === "notifications/tasks") {
        if (message.params?.status === "cancelled" && t0 > 0) latency = performance.now() - t0;
        else if (!sawSnapshot) {
          sawSnapshot = true;
          t0 = performance.now();
          void cancelRunAsAdmin(sql, { runId: taskId, reason: "bench" });
        }
      }
      if (!Number.isNaN(latency) || Date.now() > deadline) break;
    }
    if (i >= 3) times.push(latency);
  }
  return { times };
}

/**
 * The floor under the create latency: the same server's bare route (GET /api/mcp, a 405 with no
 * handler work) requested the same way, one at a time — what Next and the HTTP round trip cost alone.
 */
async function measureBareSequential() {
  const times: number[] = [];
  for (let i = 0; i < creates + 30; i++) {
    const t0 = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status !== 405) throw new Error(`bare route answered ${response.status}`);
    if (i >= 30) times.push(performance.now() - t0);
  }
  return times;
}

const sql = postgres(process.env.DATABASE_URL ?? "", { max: 2, onnotice: () => {} });
try {
  const bare = await measureBareSequential();
  const created = await measureCreates();
  const listen = await measureListen(sql);
  writeResult({ create: created.times, ids: created.ids, listen: listen.times, bare });
} catch (error) {
  writeFailure(error);
  process.exitCode = 1;
} finally {
  await sql.end();
}
