import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "@runifold/store/embedded";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyDatabase, requireStandaloneBuild } from "../deploy/support";
import { connectLegacyClient } from "../helpers/legacy-client";
import { ROOT } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { run, tarEntries } from "./projects";
import {
  alive,
  cleanUp,
  embeddedState,
  installServerPackage,
  npxServer,
  type Server,
  waitForWelcome,
  withoutPostgres,
} from "./server-project";

// @runifold/server as a team gets it (issue 34, DESIGN.md §8): packed with `npm pack -w` (whose
// prepack copies this checkout's standalone build, static assets and migrations into dist/ and
// bundles the bin), installed from the tarball into an empty project, and run there with npx as
// the docs say — `runifold-server dev` with no Postgres anywhere in its environment, twice over
// one store, and `runifold-server start` against a database of the test server. Needs `next build`
// first (`npm test` runs the build suite before this one); without it the file fails, never skips.

const journal = JSON.parse(readFileSync(path.join(ROOT, "packages/store/migrations/meta/_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};
/** A bound, not a goal: the tarball held 7.8–9.3 MB (33–39 MB unpacked) while this test was written (Next's server is most of it). */
const MAX_TARBALL_BYTES = 20 * 1024 * 1024;

let scratch: string;
let tarball: string;
let project: string;

beforeAll(async () => {
  requireStandaloneBuild();
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-server-pkg-"));
  const installed = await installServerPackage(scratch);
  ({ tarball, project } = installed);
  console.info(`@runifold/server: ${installed.timings}`);
}, 600_000);

afterAll(async () => {
  await cleanUp(project);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const npx = (args: string[], env: NodeJS.ProcessEnv) => npxServer(project, args, env);
const devDir = () => path.join(project, ".runifold");

/** Ctrl-C as a terminal sends it: to every process of the job (npx, and the bin under it). */
async function interrupt(server: Server, signal: NodeJS.Signals): Promise<void> {
  process.kill(-(server.child.pid as number), signal);
  const code = await Promise.race([server.closed, new Promise((r) => setTimeout(() => r("timeout"), 60_000))]);
  expect(code, server.output()).not.toBe("timeout");
  expect(server.output()).toContain("[runifold-server] stopped");
  expect(server.output()).not.toContain("second signal");
}

async function listTools(mcpUrl: string, key: string): Promise<string[]> {
  const { client, close } = await connectLegacyClient(mcpUrl, key, { name: "server-package-test" });
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await close();
  }
}

describe("the @runifold/server tarball", () => {
  it("holds the bin, the standalone server with its static assets and migrations, no links and no sources", async () => {
    const entries = await tarEntries(tarball);
    const files = entries.map((entry) => entry.path.replace(/^package\//, ""));
    for (const file of [
      "package.json",
      "README.md",
      "LICENSE",
      "dist/app/server.js",
      "dist/app/start.mjs",
      "dist/app/.next/BUILD_ID",
      "dist/app/node_modules/next/package.json",
      "dist/app/db/migrations/meta/_journal.json",
      ...journal.entries.map((entry) => `dist/app/db/migrations/${entry.tag}.sql`),
    ])
      expect(files, file).toContain(file);
    expect(files.some((file) => file.startsWith("dist/app/.next/static/"))).toBe(true);
    // The trace's linked externals (postgres-<hash>) travel as copies: npm pack drops links.
    expect(files.some((file) => /^dist\/app\/\.next\/node_modules\/postgres-[^/]+\/package\.json$/.test(file))).toBe(true);
    expect(entries.filter((entry) => !entry.mode.startsWith("-") && !entry.mode.startsWith("d"))).toEqual([]);
    expect(entries.find((entry) => entry.path === "package/dist/bin/runifold-server.mjs")?.mode).toMatch(/^-rwx/);
    // None of this repository's sources (third-party packages in the trace may carry their own .ts tests).
    expect(files.filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts") && !file.includes("/node_modules/"))).toEqual(
      [],
    );
    // Built for one platform only, and for next/image, which the console does not use.
    expect(files.filter((file) => /node_modules\/(sharp|@img)\//.test(file))).toEqual([]);
    expect(statSync(tarball).size).toBeLessThan(MAX_TARBALL_BYTES);
    const manifest = JSON.parse(readFileSync(path.join(project, "node_modules/@runifold/server/package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "@runifold/server", bin: { "runifold-server": "./dist/bin/runifold-server.mjs" } });
  });
});

describe("npx runifold-server dev in an empty project", () => {
  let port: number;
  let key: string;
  let first: { dataDir: string };

  it("refuses a busy port before starting anything", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const taken = (busy.address() as net.AddressInfo).port;
    try {
      const result = await run("npx", ["runifold-server", "dev", "--port", String(taken)], {
        cwd: project,
        env: withoutPostgres(),
        allowFailure: true,
      });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`127.0.0.1:${taken} is already in use`);
      expect(result.stderr).toContain("--port");
      expect(existsSync(devDir())).toBe(false);
    } finally {
      busy.close();
    }
  });

  it("first run: starts the store, console and MCP endpoint on 127.0.0.1, prints them and the first credentials", async () => {
    port = await freePort();
    const server = npx(["dev", "--port", String(port)], withoutPostgres());
    const output = await waitForWelcome(server);
    const origin = `http://127.0.0.1:${port}`;
    expect(output).toContain(`console ${origin}`);
    expect(output).toContain(`MCP endpoint: ${origin}/api/mcp`);
    expect(output).toContain("First run. Save these now");
    expect(output).toMatch(/operator login: admin@runifold\.local \/ \S{20,}/);
    key = /API key \(dev\):\s+(rf_\S+)/.exec(output)?.[1] as string;
    expect(key).toBeTruthy();

    const health = await fetch(`${origin}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, database: "ok", migrations: "applied" });
    // Over HTTP with the printed key: initialize, then tools/list (the tenant has no routes yet).
    expect(Array.isArray(await listTools(`${origin}/api/mcp`, key))).toBe(true);
    const anonymous = await fetch(`${origin}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(anonymous.status).toBe(401);

    const devFile = path.join(devDir(), "dev.json");
    expect(statSync(devFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(devDir(), ".gitignore"), "utf8").split("\n")).toContain("*");
    const info = JSON.parse(readFileSync(devFile, "utf8"));
    expect(Object.keys(info).sort()).toEqual(
      ["apiKey", "consoleUrl", "databaseUrl", "mcpUrl", "pid", "startedAt", "tenant", "version"].sort(),
    );
    expect(info).toMatchObject({ version: 1, consoleUrl: origin, mcpUrl: `${origin}/api/mcp`, tenant: "dev", apiKey: key });
    expect(new Date(info.startedAt).getTime()).toBeGreaterThan(Date.now() - 600_000);
    expect(alive(info.pid)).toBe(true);
    expect(readFileSync(`/proc/${info.pid}/cmdline`, "utf8")).toContain("runifold-server");
    // A worker's URL: a runtime login of the embedded store, never its superuser, and it connects.
    const dbUrl = new URL(info.databaseUrl);
    expect(dbUrl.hostname).toBe("127.0.0.1");
    expect(dbUrl.username).not.toBe("postgres");
    const sql = postgres(info.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      expect(await sql`SELECT current_user AS who`).toEqual([{ who: dbUrl.username }]);
    } finally {
      await sql.end({ timeout: 5 });
    }

    const pg = embeddedState(project);
    first = pg;
    expect(alive(pg.postmasterPid)).toBe(true);
    expect(existsSync(path.join(pg.dataDir, "postmaster.pid"))).toBe(true);
    await interrupt(server, "SIGINT");
    expect(alive(pg.postmasterPid)).toBe(false);
    // A clean shutdown: PostgreSQL removes its pid file; the dev file goes with the server.
    expect(existsSync(path.join(pg.dataDir, "postmaster.pid"))).toBe(false);
    expect(existsSync(devFile)).toBe(false);
    expect(
      await fetch(`${origin}/api/health`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
  }, 300_000);

  it("second run: reuses the store and the key, and prints no new credentials", async () => {
    expect(key).toBeTruthy();
    const server = npx(["dev", "--port", String(port)], withoutPostgres());
    const output = await waitForWelcome(server);
    expect(output).not.toContain("initialising embedded PostgreSQL cluster");
    expect(output).not.toMatch(/applied \d+ migration/);
    expect(output).not.toContain("First run");
    expect(output).not.toMatch(/rf_[A-Za-z0-9]+_/);
    expect(output).not.toContain("operator login");
    expect(output).toContain("the API key of tenant dev is in .runifold/dev.json");
    const info = JSON.parse(readFileSync(path.join(devDir(), "dev.json"), "utf8"));
    expect(info.apiKey).toBe(key);
    expect(await listTools(info.mcpUrl, key)).toEqual(expect.any(Array));

    const pg = embeddedState(project);
    expect(pg.dataDir).toBe(first.dataDir);
    await interrupt(server, "SIGTERM");
    expect(alive(pg.postmasterPid)).toBe(false);
    expect(existsSync(path.join(pg.dataDir, "postmaster.pid"))).toBe(false);
  }, 300_000);
});

describe("npx runifold-server start", () => {
  it("refuses to start without DATABASE_URL, naming it and the dev command", async () => {
    const result = await run("npx", ["runifold-server", "start"], { cwd: project, env: withoutPostgres(), allowFailure: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("DATABASE_URL is required");
    expect(result.stderr).toContain("runifold-server dev");
  });

  it("migrates the store DATABASE_URL names, serves on HOST/PORT, and stops on SIGTERM", async () => {
    const db = await emptyDatabase("server_pkg");
    try {
      const port = await freePort();
      const server = npx(
        ["start"],
        withoutPostgres({
          DATABASE_URL: db.url,
          NEXTAUTH_SECRET: "server-package-secret-0123456789",
          HOST: "127.0.0.1",
          PORT: String(port),
          RUNIFOLD_LOG_LEVEL: "warn",
        }),
      );
      await waitFor(
        async () => {
          if (server.child.exitCode !== null) throw new Error(`start exited (${server.child.exitCode}):\n${server.output()}`);
          return fetch(`http://127.0.0.1:${port}/api/health`).then(
            (r) => r.status,
            () => 0,
          );
        },
        (status) => status === 200,
        { describe: "runifold-server start to answer GET /api/health", timeoutMs: 120_000, everyMs: 250 },
      );
      expect(server.output()).toContain(`applied ${journal.entries.at(-1)?.tag}`);
      expect(await db.sql`SELECT email FROM operators`).toEqual([{ email: "admin@runifold.local" }]);
      process.kill(-(server.child.pid as number), "SIGTERM");
      const code = await Promise.race([server.closed, new Promise((r) => setTimeout(() => r("timeout"), 30_000))]);
      expect(code, server.output()).not.toBe("timeout");
    } finally {
      await db.drop();
    }
  }, 240_000);
});
