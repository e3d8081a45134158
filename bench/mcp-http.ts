// (3) MCP over HTTP against the production build (`next start`): tools/call → CreateTaskResult
// latency and (4) listen: state change → notifications/tasks at the client, from a sequential load
// process (bench/procs/mcp-load.ts); then tasks/get and the bare route (GET /api/mcp, a 405) under the
// same autocannon load from another process (bench/procs/http-load.ts), and their ratio.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { migrate } from "@runifold/store";
import { freePort } from "@runifold/store/embedded";
import postgres from "postgres";
import { createApiKey } from "../lib/auth";
import { modernRequest, TASKS_ONLY } from "../tests/helpers/mcp-envelope";
import { seedDemo } from "../workflows/demo/seed";
import type { BenchContext } from "./lib/context";
import type { HttpLoadSpec } from "./lib/http-load-spec";
import { recreateDatabase } from "./lib/pg";
import { awaitResult, type Child, ROOT, spawnTs, spawnWithResult, stopAll, waitFor } from "./lib/procs";
import { round, summary } from "./lib/stats";

/** autocannon connections for both sustained loads (keep-alive, one request in flight each). */
const CONNECTIONS = 16;

type HttpLoadResult = {
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

/** One autocannon run in its own process (bench/procs/http-load.ts); its figures come back through a file. */
async function httpLoad(children: Child[], spec: Omit<HttpLoadSpec, "connections">): Promise<HttpLoadResult> {
  const load = spawnWithResult(
    "bench/procs/http-load.ts",
    { BENCH_HTTP_SPEC: JSON.stringify({ ...spec, connections: CONNECTIONS }) },
    "http-load",
  );
  children.push(load.child);
  return awaitResult<HttpLoadResult>(load.child, load.file, (spec.seconds + 60) * 1000, "autocannon load process");
}

const nextBin = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");

async function ensureBuild(log: (l: string) => void) {
  if (existsSync(path.join(ROOT, ".next", "BUILD_ID"))) return;
  log("no production build: running next build");
  const child = spawn(process.execPath, [nextBin, "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`next build failed (${code})`);
}

export async function benchMcpHttp(ctx: BenchContext) {
  await ensureBuild(ctx.log);
  const url = await recreateDatabase(ctx.adminUrl, "bench_mcp");
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  const children: Child[] = [];
  try {
    await migrate(sql);
    await seedDemo(sql);
    const tenant = (await sql`SELECT id FROM tenants WHERE slug = 'conformance'`)[0]?.id as string;
    const { token } = await createApiKey(sql, { tenantId: tenant, name: "bench" });
    const port = await freePort();
    const env = {
      DATABASE_URL: url,
      NODE_ENV: "production" as const,
      NEXTAUTH_SECRET: randomBytes(24).toString("hex"),
      NEXTAUTH_URL: `http://127.0.0.1:${port}`,
      RUNIFOLD_LOG_LEVEL: "warn",
      // One key makes every call here: the per-credential creation rate and live-task caps (M4) are
      // for runaway clients, not for a load generator measuring the server.
      RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_KEY: "1000000",
      RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY: "1000000",
    };
    // BENCH_MCP_SERVER=plain: the same handler in a bare node:http server (tests/helpers), to separate Next's cost.
    if (process.env.BENCH_MCP_SERVER === "plain")
      children.push(spawnTs("tests/helpers/mcp-server-process.ts", { ...env, PORT: String(port) }));
    else
      children.push(
        Object.assign(
          spawn(process.execPath, [nextBin, "start", "-H", "127.0.0.1", "-p", String(port)], {
            cwd: ROOT,
            env: { ...process.env, ...env },
            stdio: ["ignore", "pipe", "pipe"],
          }),
          { output: () => "", resultLine: () => undefined },
        ),
      );
    children.push(spawnTs("workers/engine.ts", { ...env, RUNIFOLD_POLL_MS: "1000" }));
    const origin = `http://127.0.0.1:${port}`;
    const up = async () =>
      (
        await fetch(process.env.BENCH_MCP_SERVER === "plain" ? `${origin}/api/mcp` : `${origin}/api/health`, {
          method: process.env.BENCH_MCP_SERVER === "plain" ? "POST" : "GET",
        }).catch(() => undefined)
      )?.status;
    await waitFor(async () => [200, 401].includes((await up()) ?? 0), 90_000, "web process ready", 250);
    const mcpUrl = `${origin}/api/mcp`;
    const load = spawnWithResult(
      "bench/procs/mcp-load.ts",
      {
        BENCH_MCP_URL: mcpUrl,
        BENCH_TOKEN: token,
        DATABASE_URL: url,
        BENCH_CREATES: String(ctx.quick ? 100 : 300),
        BENCH_LISTENS: String(ctx.quick ? 30 : 100),
      },
      "mcp-load",
    );
    children.push(load.child);
    const result = await awaitResult<{ create: number[]; ids: string[]; listen: number[]; bare: number[] }>(
      load.child,
      load.file,
      300_000,
      "MCP load process",
    );
    const r = ctx.report;
    const create = summary(result.create);
    const listen = summary(result.listen);
    r.goal("mcp.tools_call_create_task.p50", create.p50, `${create.n} sequential calls, next start`);
    r.figure("mcp.tools_call_create_task.p99", create.p99, "ms");
    const bareSequential = summary(result.bare);
    r.figure("mcp.bare_route.sequential_p50", bareSequential.p50, "ms", {
      note: `${bareSequential.n} sequential GET /api/mcp (405), same client: the floor under the create latency`,
    });
    r.figure("listen.state_change_to_notification.p50", listen.p50, "ms", {
      note: `${listen.n} cancels committed by SQL, SSE at the client`,
    });
    r.figure("listen.state_change_to_notification.p99", listen.p99, "ms");

    // Sustained load: the bare route first, then tasks/get, same server, same generator, same settings.
    const seconds = ctx.quick ? 3 : 10;
    const bare = await httpLoad(children, { url: mcpUrl, seconds, requests: [{ method: "GET", headers: {}, body: "" }] });
    const statusBare = bare.statusCodes["405"] ?? 0;
    const bareUnexpected = bare.errors + bare.timeouts + (bare.total - statusBare);
    r.figure("mcp.bare_route.throughput", round(bare.perSecond, 1), "req/s", {
      note: `GET /api/mcp (405 by design), ${CONNECTIONS} connections, ${bare.seconds} s, ${bare.total} requests`,
    });
    r.figure("mcp.bare_route.p50", bare.p50, "ms");
    r.figure("mcp.bare_route.p99", bare.p99, "ms");
    r.figure("mcp.bare_route.status_405", statusBare, "responses", { note: "expected: the route has no GET" });
    r.figure("mcp.bare_route.unexpected", bareUnexpected, "responses", { note: "errors, timeouts, status other than 405" });
    // Completed tasks from the create phase, one per connection at most; the same request shape as mcp-load's.
    const taskIds = result.ids.slice(-CONNECTIONS);
    // Context for the ratio: the same tasks/get POSTs without a credential (401 from the auth gate
    // before any database read): what Next's POST handling with a JSON body costs on its own.
    const unauthenticated = taskIds.map((taskId) => modernRequest("tasks/get", { taskId }, { capabilities: TASKS_ONLY }));
    const post = await httpLoad(children, { url: mcpUrl, seconds, requests: unauthenticated });
    const status401 = post.statusCodes["401"] ?? 0;
    r.figure("mcp.bare_post_401.throughput", round(post.perSecond, 1), "req/s", {
      note: `tasks/get POSTs without a credential (401 before any database read), ${CONNECTIONS} connections, ${post.seconds} s, ${post.total} requests, ${status401} answered 401`,
    });
    r.figure("mcp.bare_post_401.p99", post.p99, "ms");
    if (status401 !== post.total || post.errors + post.timeouts > 0)
      throw new Error(`unauthenticated POST load: ${post.total - status401} answers other than 401, ${post.errors} errors`);
    const get = await httpLoad(children, {
      url: mcpUrl,
      seconds,
      requests: taskIds.map((taskId) => modernRequest("tasks/get", { taskId }, { token, capabilities: TASKS_ONLY })),
      check: "task-status",
    });
    const getUnexpected = get.errors + get.timeouts + get.non2xx;
    r.figure("mcp.tasks_get.throughput", round(get.perSecond, 1), "req/s", {
      note: `${CONNECTIONS} connections, ${get.seconds} s, ${get.total} requests, ${get.non2xx} non-2xx, ${get.errors} errors, ${get.timeouts} timeouts`,
    });
    r.figure("mcp.tasks_get.p50", get.p50, "ms");
    r.goal("mcp.tasks_get.p99", get.p99);
    r.figure("mcp.tasks_get.unexpected", getUnexpected, "responses", { note: "errors, timeouts, non-2xx" });
    r.goal(
      "ratio.tasks_get_vs_bare_route",
      round(get.perSecond / bare.perSecond, 2),
      `${round(get.perSecond, 0)} ÷ ${round(bare.perSecond, 0)} req/s`,
    );
    r.figure("ratio.tasks_get_vs_bare_post_401", round(get.perSecond / post.perSecond, 2), "x", {
      note: `${round(get.perSecond, 0)} ÷ ${round(post.perSecond, 0)} req/s: tasks/get against the same POST refused before its read`,
    });
    if (getUnexpected > 0) throw new Error(`tasks/get load had ${getUnexpected} errors/timeouts/non-2xx`);
    r.attach("mcp", { create, bareSequential, listen, bare, post, get, webPool: 20 });
  } finally {
    await stopAll(children);
    await sql.end();
  }
}
