import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRun, readDevFile } from "@runifold/sdk";
import { freePort, readEmbeddedUrl } from "@runifold/store/embedded";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, waitForExit } from "../helpers/processes";
import { waitForRunStatus } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";

// `npm start` as a user runs it: no DATABASE_URL (so its own embedded Postgres, under a private
// RUNIFOLD_DATA_DIR so a developer's .data/pg is untouched), one worker, then Ctrl-C. Web and worker
// connect as the runtime logins, never as the superuser (review 3, F4).

let dataRoot: string;
let supervisor: ChildProcess | undefined;
let output = "";
let clusterDir: string | undefined;
const owned = new Set<number>();

beforeAll(() => {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    const build = spawnSync(process.execPath, [path.join(ROOT, "node_modules/next/dist/bin/next"), "build"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 600_000,
    });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
  }
  dataRoot = mkdtempSync(path.join(os.tmpdir(), "runifold-start-"));
}, 620_000);

afterAll(async () => {
  if (supervisor?.pid && alive(supervisor.pid)) supervisor.kill("SIGKILL");
  for (const pid of owned) if (alive(pid)) kill(pid, "SIGKILL");
  await waitFor(
    () => [...owned].filter(alive),
    (left) => left.length === 0,
    { describe: "every process the test started to be gone", timeoutMs: 10_000 },
  ).catch(() => {});
  // When the project path is not traversable by the postgres user (a mode-700 clone), the cluster
  // and a copy of the binaries live in a runtime directory keyed by this temporary data root.
  const relocated = clusterDir && !clusterDir.startsWith(dataRoot) ? path.dirname(clusterDir) : undefined;
  if (relocated && path.basename(relocated).startsWith("runifold-")) rmSync(relocated, { recursive: true, force: true });
  rmSync(dataRoot, { recursive: true, force: true });
});

describe("npm start", () => {
  it("starts Postgres, the web app and a worker, runs a workflow, and stops everything on Ctrl-C", async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      RUNIFOLD_DATA_DIR: dataRoot,
      PORT: String(port),
      HOST: "127.0.0.1",
      RUNIFOLD_WORKERS: "1",
      RUNIFOLD_LOG_LEVEL: "warn",
    };
    for (const name of ["DATABASE_URL", "NEXTAUTH_SECRET", "NEXTAUTH_URL", "RUNIFOLD_PUBLIC_URL"]) delete env[name];
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/start.ts")], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    supervisor = child;
    child.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    const supervisorPid = child.pid as number;
    owned.add(supervisorPid);

    const health = await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`npm start exited early (${child.exitCode}):\n${output}`);
        return await fetch(`http://127.0.0.1:${port}/api/health`)
          .then((r) => (r.status === 200 ? r.json() : undefined))
          .catch(() => undefined);
      },
      (body) => body?.workers?.online >= 1,
      { describe: "GET /api/health to report a worker online", timeoutMs: 180_000, everyMs: 250 },
    ).catch((error) => {
      throw new Error(`${(error as Error).message}\n${output}`);
    });
    expect(health).toEqual({ database: "ok", migrations: "applied", workers: { online: 1 }, ok: true });
    expect(output).toContain(`http://127.0.0.1:${port}`);
    expect(readFileSync(path.join(dataRoot, "nextauth-secret"), "utf8").trim().length).toBeGreaterThanOrEqual(32);

    const state = JSON.parse(readFileSync(path.join(dataRoot, "supervisor.json"), "utf8")) as {
      web: number;
      workers: number[];
      postgres: number;
    };
    clusterDir = (JSON.parse(readFileSync(path.join(dataRoot, "pg.embedded.json"), "utf8")) as { dataDir: string }).dataDir;
    const url = readEmbeddedUrl(ROOT, "pg", dataRoot);
    expect(url).toBeTruthy();
    const named = [supervisorPid, state.web, ...state.workers, state.postgres];
    expect(state.workers).toHaveLength(1);
    for (const pid of named) expect(alive(pid)).toBe(true);

    // The welcome names where to go next (review F24).
    // (printed right after the supervisor's own health check, which may come after this test's)
    await waitFor(
      async () => output,
      (text) => text.includes("Press Ctrl-C to stop."),
      { describe: "the welcome", timeoutMs: 30_000 },
    );
    expect(output).toContain(`console: http://127.0.0.1:${port}/tasks · MCP endpoint: http://127.0.0.1:${port}/api/mcp`);

    // The dev loop's file (runifold-worker --dev): the workers' login, the seeded key and its tenant.
    const devFile = path.join(ROOT, ".runifold", "dev.json");
    expect(readDevFile(devFile)).toMatchObject({
      databaseUrl: expect.stringMatching(/^postgres:\/\/runifold_worker_postgres:/),
      consoleUrl: `http://127.0.0.1:${port}`,
      mcpUrl: `http://127.0.0.1:${port}/api/mcp`,
      tenant: "tenant-acme",
      apiKey: expect.any(String),
      pid: supervisorPid,
    });

    const sql = postgres(url as string, { max: 2, onnotice: () => {} });
    try {
      // The demo is the showcase alone: no conformance fixtures in a user's console (review F22).
      expect((await sql`SELECT slug FROM tenants ORDER BY slug`).map((row) => row.slug)).toEqual(["tenant-acme"]);
      const [tenant] = await sql`INSERT INTO tenants (slug, name) VALUES ('start-test', 'Start test') RETURNING id`;
      const run = await createRun(sql, {
        tenantId: tenant?.id as string,
        workflowName: "generate-report",
        workflowVersion: 1,
        input: { report_id: "x", settle_ms: 0 },
      });
      await waitForRunStatus(sql, run.id, "completed", 60_000);

      // Review 3, F4: web and workers connect as the database's runtime logins, never as the
      // cluster's superuser (which the migrations and this test use).
      const backends = await sql<{ role: string; app: string; super: boolean; bypass: boolean }[]>`
        SELECT r.rolname AS role, a.application_name AS app, r.rolsuper AS super, r.rolbypassrls AS bypass
        FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid
        WHERE a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()`;
      const byRole = new Map<string, Set<string>>();
      for (const b of backends) byRole.set(b.role, (byRole.get(b.role) ?? new Set()).add(b.app));
      expect(backends.filter((b) => b.super || b.bypass)).toEqual([]);
      expect([...byRole.keys()].sort()).toEqual(["runifold_web_postgres", "runifold_worker_postgres"]);
      // Each pool's LISTEN connection is named after it with "-listen" (packages/store/src/listen-watchdog.ts).
      const webApps = ["runifold-web", "runifold-web-listen"];
      expect([...(byRole.get("runifold_web_postgres") ?? [])]).toContain("runifold-web");
      expect([...(byRole.get("runifold_web_postgres") ?? [])].filter((app) => !webApps.includes(app))).toEqual([]);
      const workerApps = ["runifold-worker", "runifold-worker-listen", "runifold-worker-lease", "runifold-retention-lock"];
      expect([...(byRole.get("runifold_worker_postgres") ?? [])].filter((app) => !workerApps.includes(app))).toEqual([]);
    } finally {
      await sql.end({ timeout: 5 });
    }

    // Everything the supervisor started (web, worker, Postgres and its backends, helpers).
    const tree = descendants(supervisorPid);
    for (const pid of [...named, ...tree]) owned.add(pid);
    for (const pid of named) expect([supervisorPid, ...tree]).toContain(pid);

    const started = Date.now();
    child.kill("SIGINT");
    expect(await waitForExit(child, 30_000)).toBe(0);
    await waitFor(
      () => [...owned].filter(alive),
      (left) => left.length === 0,
      {
        describe: "every process npm start owned to exit",
        timeoutMs: Math.max(1_000, 30_000 - (Date.now() - started)),
        everyMs: 100,
      },
    ).catch(() => {
      const left = [...owned].filter(alive).map((pid) => `${pid}: ${cmdline(pid)}`);
      throw new Error(`processes left behind:\n${left.join("\n")}\n${output}`);
    });
    expect(existsSync(path.join(dataRoot, "supervisor.json"))).toBe(false);
    expect(existsSync(devFile)).toBe(false);
  }, 330_000);
});

/** Alive and not a zombie (a container's pid 1 may never reap an orphan). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

function descendants(rootPid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parent.set(Number(entry), Number(fields[1]));
    } catch {
      // exited while listing
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, ppid] of parent) {
      if (ppid === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(rootPid);
  return found;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "?";
  }
}

function kill(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}
