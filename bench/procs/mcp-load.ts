// The load process for bench/mcp-http.ts: a separate Node process on loopback speaking the modern
// (2026-07-28) wire to the production build. Bounded: fixed request counts and a fixed duration.
// Prints one line `RESULT <json>`.

import { cancelRun } from "@runifold/sdk";
import postgres from "postgres";

const url = process.env.BENCH_MCP_URL ?? "";
const token = process.env.BENCH_TOKEN ?? "";
const creates = Number(process.env.BENCH_CREATES ?? 200);
const getSeconds = Number(process.env.BENCH_GET_SECONDS ?? 10);
const getConcurrency = Number(process.env.BENCH_GET_CONCURRENCY ?? 16);
const listens = Number(process.env.BENCH_LISTENS ?? 50);
const MAX_GETS = 200_000;
let nextId = 1;

function envelope(method: string, params: Record<string, unknown>) {
  const name = method === "tools/call" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "runifold-bench", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
        },
      },
    }),
  };
}

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

async function measureGets(ids: string[]) {
  const times: number[] = [];
  let errors = 0;
  let status5xx = 0;
  for (let i = 0; i < 200; i++) await call("tasks/get", { taskId: ids[i % ids.length] }); // warm-up
  const started = performance.now();
  const deadline = started + getSeconds * 1000;
  await Promise.all(
    Array.from({ length: getConcurrency }, async (_, loop) => {
      for (let i = loop; performance.now() < deadline && times.length < MAX_GETS; i += getConcurrency) {
        const t0 = performance.now();
        const response = await fetch(url, envelope("tasks/get", { taskId: ids[i % ids.length] }));
        const body = (await response.json()) as { result?: { status?: string } };
        times.push(performance.now() - t0);
        if (response.status >= 500) status5xx++;
        if (!body.result?.status) errors++;
      }
    }),
  );
  const elapsed = performance.now() - started;
  return { times, perSecond: (times.length * 1000) / elapsed, errors, status5xx, elapsedMs: elapsed };
}

/** state change (a cancel committed by SQL) → notifications/tasks with the new status at this client. */
async function measureListen(sql: postgres.Sql) {
  const times: number[] = [];
  for (let i = 0; i < listens + 3; i++) {
    const taskId = await createTask(3_600);
    const response = await fetch(url, envelope("subscriptions/listen", { notifications: { taskIds: [taskId] } }));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let t0 = 0;
    let sawSnapshot = false;
    let latency = Number.NaN;
    const deadline = Date.now() + 15_000;
    while (Number.isNaN(latency) && Date.now() < deadline) {
      const part = await reader.read();
      if (part.done) break;
      buffer += decoder.decode(part.value, { stream: true });
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf("\n\n");
        const data = event.split("\n").find((line) => line.startsWith("data: "));
        if (!data) continue;
        const message = JSON.parse(data.slice(6)) as { method?: string; params?: { status?: string } };
        if (message.method !== "notifications/tasks") continue;
        if (message.params?.status === "cancelled" && t0 > 0) latency = performance.now() - t0;
        else if (!sawSnapshot) {
          sawSnapshot = true;
          t0 = performance.now();
          void cancelRun(sql, { runId: taskId, reason: "bench" });
        }
      }
    }
    await reader.cancel().catch(() => {});
    if (i >= 3) times.push(latency);
  }
  return { times };
}

const sql = postgres(process.env.DATABASE_URL ?? "", { max: 2, onnotice: () => {} });
try {
  const created = await measureCreates();
  const gets = await measureGets(created.ids);
  const listen = await measureListen(sql);
  process.stdout.write(
    `RESULT ${JSON.stringify({ create: created.times, get: { ...gets, times: gets.times }, listen: listen.times })}\n`,
  );
} catch (error) {
  process.stdout.write(`FAILED ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await sql.end();
}
