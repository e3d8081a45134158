// (3) MCP over HTTP against the production build (`next start`): tools/call → CreateTaskResult
// latency, tasks/get sustained req/s and p99, and (4) listen: state change → notifications/tasks at
// the client. The load comes from a separate process on loopback (bench/procs/mcp-load.ts).

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { freePort } from "../db/embedded/free-port";
import { migrate } from "../db/migrate";
import { createApiKey } from "../lib/auth";
import { seedDemo } from "../workflows/demo/seed";
import type { BenchContext } from "./lib/context";
import { recreateDatabase } from "./lib/pg";
import { type Child, ROOT, spawnTs, stopAll, waitFor } from "./lib/procs";
import { round, summary } from "./lib/stats";

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
    const load = spawnTs("bench/procs/mcp-load.ts", {
      BENCH_MCP_URL: `${origin}/api/mcp`,
      BENCH_TOKEN: token,
      DATABASE_URL: url,
      BENCH_CREATES: String(ctx.quick ? 100 : 300),
      BENCH_GET_SECONDS: String(ctx.quick ? 4 : 15),
      BENCH_GET_CONCURRENCY: "16",
      BENCH_LISTENS: String(ctx.quick ? 30 : 100),
    });
    children.push(load);
    const line = await waitFor(() => load.resultLine(), 300_000, "MCP load process", 200);
    if (line.startsWith("FAILED")) throw new Error(`MCP load: ${line}\n${load.output().slice(-2000)}`);
    const result = JSON.parse(line.slice(7)) as {
      create: number[];
      get: { times: number[]; perSecond: number; errors: number; status5xx: number; elapsedMs: number };
      listen: number[];
    };
    const create = summary(result.create);
    const get = summary(result.get.times);
    const listen = summary(result.listen);
    const r = ctx.report;
    r.target("mcp.tools_call_create_task.p50", create.p50, "ms", "<=", 15, `${create.n} sequential calls, next start`);
    r.figure("mcp.tools_call_create_task.p99", create.p99, "ms");
    r.target(
      "mcp.tasks_get.throughput",
      round(result.get.perSecond, 1),
      "req/s",
      ">=",
      1000,
      `16 concurrent loops for ${round(result.get.elapsedMs / 1000, 1)} s, ${result.get.times.length} requests, ${result.get.errors} errors, ${result.get.status5xx} 5xx`,
    );
    r.figure("mcp.tasks_get.p50", get.p50, "ms");
    r.target("mcp.tasks_get.p99", get.p99, "ms", "<=", 50);
    r.target(
      "listen.state_change_to_notification.p50",
      listen.p50,
      "ms",
      "<=",
      50,
      `${listen.n} cancels committed by SQL, SSE at the client`,
    );
    r.figure("listen.state_change_to_notification.p99", listen.p99, "ms");
    r.attach("mcp", {
      create,
      get: { ...get, perSecond: result.get.perSecond, errors: result.get.errors, status5xx: result.get.status5xx },
      listen,
      webPool: 20,
    });
  } finally {
    await stopAll(children);
    await sql.end();
  }
}
