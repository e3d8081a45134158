// The production Runifold stack the MCP sections drive: a fresh database with the demo seed, an API
// key of the conformance tenant (its slow_compute tool), `next start` (or, with BENCH_MCP_SERVER=plain,
// the same handler in a bare node:http server) and one engine worker.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { migrate } from "@runifold/store";
import { freePort } from "@runifold/store/embedded";
import postgres from "postgres";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { recreateDatabase } from "./pg";
import { type Child, childNodeArgs, ROOT, spawnTs, waitFor } from "./procs";

const nextBin = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");

async function ensureBuild(log: (l: string) => void) {
  if (existsSync(path.join(ROOT, ".next", "BUILD_ID"))) return;
  log("no production build: running next build");
  const child = spawn(process.execPath, [nextBin, "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`next build failed (${code})`);
}

export type RunifoldWeb = {
  url: string;
  sql: postgres.Sql;
  mcpUrl: string;
  token: string;
  web: Child;
  worker: Child;
  /**
   * A second web process on the same database and worker: the same MCP handler in a bare node:http
   * server (tests/helpers/mcp-server-process.ts), without Next around it. Sessions, keys and tasks
   * live in PostgreSQL, so one session serves both. Context only: the product serves /api/mcp from Next.
   */
  startPlainTwin: () => Promise<{ mcpUrl: string; child: Child }>;
};

/** Starts the stack on database `database`; every process it starts is pushed onto `children`. */
export async function startRunifoldWeb(
  adminUrl: string,
  database: string,
  children: Child[],
  log: (line: string) => void,
): Promise<RunifoldWeb> {
  const plain = process.env.BENCH_MCP_SERVER === "plain";
  if (!plain) await ensureBuild(log);
  const url = await recreateDatabase(adminUrl, database);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
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
    // One key of one tenant makes every call here: the per-credential and per-tenant creation rates and
    // the live-task cap (M4) are for runaway clients, not for a load generator measuring the server.
    RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_KEY: "1000000",
    RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY: "1000000",
    RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_TENANT: "1000000",
  };
  const startPlain = (listenOn: number) => spawnTs("tests/helpers/mcp-server-process.ts", { ...env, PORT: String(listenOn) });
  const web = plain
    ? startPlain(port)
    : Object.assign(
        spawn(process.execPath, [...childNodeArgs(), nextBin, "start", "-H", "127.0.0.1", "-p", String(port)], {
          cwd: ROOT,
          env: { ...process.env, ...env },
          stdio: ["ignore", "pipe", "pipe"],
        }),
        { output: () => "" },
      );
  children.push(web);
  const worker = spawnTs("workers/engine.ts", { ...env, RUNIFOLD_POLL_MS: "1000" });
  children.push(worker);
  const origin = `http://127.0.0.1:${port}`;
  const up = async () =>
    (await fetch(plain ? `${origin}/api/mcp` : `${origin}/api/health`, { method: plain ? "POST" : "GET" }).catch(() => undefined))
      ?.status;
  await waitFor(async () => [200, 401].includes((await up()) ?? 0), 90_000, "web process ready", 250);
  const startPlainTwin = async () => {
    const twinPort = await freePort();
    const child = startPlain(twinPort);
    children.push(child);
    const mcpUrl = `http://127.0.0.1:${twinPort}/api/mcp`;
    const status = async () => (await fetch(mcpUrl, { method: "POST" }).catch(() => undefined))?.status;
    await waitFor(async () => (await status()) === 401, 60_000, "the plain twin web process ready", 250);
    return { mcpUrl, child };
  };
  return { url, sql, mcpUrl: `${origin}/api/mcp`, token, web, worker, startPlainTwin };
}
