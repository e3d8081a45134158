import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "@runifold/store/embedded";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernClient } from "../helpers/modern-client";
import { ROOT } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { packWorkspaces } from "../packaging/projects";
import { hostArgv, imageSpec } from "./dockerfile";
import {
  assemble,
  baseEnv,
  composeEnvironment,
  emptyDatabase,
  requireStandaloneBuild,
  runArgv,
  type Started,
  startProcess,
  stopAll,
} from "./support";

// What the images do, minus the images (issue 17): the Dockerfile's build step (assemble.ts) writes
// the web and worker directories into empty temporary directories, away from this checkout, and
// each runs the way its Dockerfile target says (WORKDIR, ENV, CMD/ENTRYPOINT, HEALTHCHECK) with the
// environment compose.yaml gives it; only addresses and the database differ. The worker is the
// packed SDK tarball installed from the registry, serving the bundled demo module.

const web = imageSpec("web");
const migrateJob = imageSpec("migrate");
const worker = imageSpec("worker");
const journal = JSON.parse(readFileSync(path.join(ROOT, "packages/store/migrations/meta/_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};
const TAGS = journal.entries.map((entry) => entry.tag);

let scratch: string;
let webDir: string;
let workerDir: string;
let db: Awaited<ReturnType<typeof emptyDatabase>>;
let origin: string;
let port: number;
let server: Started | undefined;
let password: string | undefined;
const outputs: string[] = [];

/**
 * An image's env on this machine: the Dockerfile's ENV, then compose's, then this test's addresses;
 * a path under the image's WORKDIR (RUNIFOLD_WORKFLOWS=/app/workflows/index.js) points into the directory.
 */
function envFor(spec: typeof web, service: string, overrides: Record<string, string>): Record<string, string> {
  const dir = spec === worker ? workerDir : webDir;
  const workdir = `${spec.workdir ?? "/"}/`;
  const image = Object.entries({ ...spec.env, ...composeEnvironment(service) }).map(([name, value]) => [
    name,
    value.startsWith(workdir) ? path.join(dir, value.slice(workdir.length)) : value,
  ]);
  return { ...baseEnv(), ...Object.fromEntries(image), RUNIFOLD_LOG_LEVEL: "info", ...overrides };
}

const webEnv = () =>
  envFor(web, "web", {
    DATABASE_URL: db.url,
    NEXTAUTH_SECRET: "standalone-test-secret-0123456789",
    NEXTAUTH_URL: origin,
    RUNIFOLD_PUBLIC_URL: origin,
    // The image binds 0.0.0.0 (its ENV and compose say so); a test binds loopback only.
    HOST: "127.0.0.1",
    PORT: String(port),
  });

/** The web image's HEALTHCHECK, run as Docker runs it: its exit code. */
async function healthcheck(): Promise<number | null> {
  const command = web.healthcheck?.command ?? [];
  expect(command[0]).toBe("node");
  const result = await runArgv(command, { cwd: webDir, env: webEnv(), allowFailure: true });
  return result.code;
}

beforeAll(async () => {
  requireStandaloneBuild();
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-deploy-"));
  webDir = path.join(scratch, "web");
  workerDir = path.join(scratch, "worker");
  // Packed under the packaging tests' lock (two runs would rebuild the SDK's dist/ at once).
  const tarballs = await packWorkspaces(path.join(scratch, "tarballs"));
  await assemble(["--web", webDir, "--worker", workerDir, "--sdk-tarball", tarballs.sdk]);
  db = await emptyDatabase("deploy");
  port = await freePort();
  origin = `http://127.0.0.1:${port}`;
}, 420_000);

afterAll(async () => {
  await stopAll();
  await db?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the assembled web directory", () => {
  it("stands alone: server.js, its static assets and migrations beside it, and no link back into the checkout", () => {
    for (const file of [
      "server.js",
      "start.mjs",
      "migrate.mjs",
      "runifold.mjs",
      ".next/BUILD_ID",
      "db/migrations/meta/_journal.json",
    ])
      expect(statSync(path.join(webDir, file)).isFile(), file).toBe(true);
    expect(readdirSync(path.join(webDir, ".next", "static")).length).toBeGreaterThan(0);
    const links: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isSymbolicLink()) links.push(path.resolve(dir, readlinkSync(file)));
        else if (entry.isDirectory()) walk(file);
      }
    };
    walk(webDir);
    expect(links.filter((target) => !target.startsWith(`${webDir}${path.sep}`))).toEqual([]);
  });
});

describe("production start-up from the assembled directories", () => {
  it("the web waits for the migrate job instead of migrating, and is not healthy meanwhile", async () => {
    server = startProcess("web", hostArgv(web, webDir), { cwd: webDir, env: webEnv() });
    await waitFor(
      () => {
        if (server?.exitCode !== null) throw new Error(`the web exited (${server?.exitCode}):\n${server?.output()}`);
        return server.output();
      },
      (output) => output.includes("not migrated"),
      { describe: "the web to say the store is not migrated", timeoutMs: 60_000, everyMs: 200 },
    );
    expect(server.output()).toContain("run the migrate job first");
    expect(await healthcheck()).toBe(1);
    const [table] = await db.sql`SELECT to_regclass('runifold_migrations') IS NOT NULL AS present`;
    expect(table?.present).toBe(false);
  });

  it("the migrate job applies every migration and seeds only a first admin, its password in a 0600 file and never on stdout", async () => {
    const env = envFor(migrateJob, "migrate", { DATABASE_URL: db.url });
    expect(env.RUNIFOLD_SEED).toBe("admin");
    const first = await runArgv(hostArgv(migrateJob, webDir), { cwd: webDir, env });
    outputs.push(first.stdout, first.stderr);
    expect(first.stdout.split("\n").filter((line) => line.startsWith("applied "))).toEqual(TAGS.map((tag) => `applied ${tag}`));
    const files = readdirSync(path.join(webDir, ".data")).filter((name) => name.startsWith("first-run-credentials-"));
    expect(files).toHaveLength(1);
    const file = path.join(webDir, ".data", files[0] as string);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.stdout).toContain(file);
    password = /operator login: admin@runifold\.local \/ (\S+)/.exec(readFileSync(file, "utf8"))?.[1];
    expect(password).toMatch(/^[\w-]{20,}$/);

    expect(await db.sql`SELECT slug FROM tenants`).toEqual([]);
    expect(await db.sql`SELECT id FROM api_keys`).toEqual([]);
    expect(await db.sql`SELECT email, role, must_change_password FROM operators`).toEqual([
      { email: "admin@runifold.local", role: "admin", must_change_password: true },
    ]);

    const again = await runArgv(hostArgv(migrateJob, webDir), { cwd: webDir, env });
    outputs.push(again.stdout, again.stderr);
    expect(again.stdout.trim()).toBe("migrations: up to date");
    expect(readdirSync(path.join(webDir, ".data")).filter((name) => name.startsWith("first-run-credentials-"))).toHaveLength(1);
  });

  it("then the web starts on its own and its HEALTHCHECK passes", async () => {
    await waitFor(
      async () => {
        if (server?.exitCode !== null) throw new Error(`the web exited (${server?.exitCode}):\n${server?.output()}`);
        return healthcheck();
      },
      (code) => code === 0,
      { describe: "the web image's HEALTHCHECK to pass", timeoutMs: 90_000, everyMs: 500 },
    );
    const health = await (await fetch(`${origin}/api/health`)).json();
    expect(health).toMatchObject({ database: "ok", migrations: "applied", ok: true });
    // The console's stylesheet comes from the copied .next/static.
    const login = await (await fetch(`${origin}/login`)).text();
    const css = /\/_next\/static\/[^"]+\.css/.exec(login)?.[0];
    expect(css).toBeTruthy();
    expect((await fetch(`${origin}${css}`)).status).toBe(200);
  });

  it("runifold-worker migrate from the worker directory applies the same migrations to another store", async () => {
    const other = await emptyDatabase("deploy_sdk");
    try {
      const env = envFor(worker, "worker", { DATABASE_URL: other.url });
      const first = await runArgv(hostArgv(worker, workerDir, ["migrate"]), { cwd: workerDir, env });
      expect(first.stdout.split("\n").filter((line) => line.startsWith("applied "))).toEqual(TAGS.map((tag) => `applied ${tag}`));
      const again = await runArgv(hostArgv(worker, workerDir, ["migrate"]), { cwd: workerDir, env });
      expect(again.stdout.trim()).toBe("migrations: up to date");
      // It seeds nothing: that is the web image's job.
      expect(await other.sql`SELECT id FROM operators`).toEqual([]);
    } finally {
      await other.drop();
    }
  });

  it("a worker from the packed SDK serves the demo; the bundled CLI binds a route and a key; an MCP task completes with an answer", async () => {
    const workerProcess = startProcess("worker", hostArgv(worker, workerDir), {
      cwd: workerDir,
      env: envFor(worker, "worker", {
        DATABASE_URL: db.url,
        NEXTAUTH_SECRET: "standalone-test-secret-0123456789",
        RUNIFOLD_PUBLIC_URL: origin,
      }),
    });
    await waitFor(
      async () => {
        if (workerProcess.exitCode !== null)
          throw new Error(`the worker exited (${workerProcess.exitCode}):\n${workerProcess.output()}`);
        return (await (await fetch(`${origin}/api/health`)).json()).workers?.online;
      },
      (online) => online >= 1,
      { describe: "/api/health to count the worker online", timeoutMs: 60_000, everyMs: 250 },
    );

    // The admin CLI as an operator runs it in the web container (`node runifold.mjs …`).
    const cli = (args: string[]) =>
      runArgv(["node", "runifold.mjs", ...args], { cwd: webDir, env: { ...baseEnv(), DATABASE_URL: db.url } });
    await cli(["tenants", "create", "team-prod"]);
    const route = await cli([
      ...["routes", "add", "--tenant", "team-prod", "--tool", "approve_expense"],
      ...["--workflow", "approve-expense", "--version", "1", "--json"],
    ]);
    expect(JSON.parse(route.stdout)).toMatchObject({ tool_name: "approve_expense", workflow_name: "approve-expense" });
    const key = (await cli(["keys", "create", "--tenant", "team-prod", "--name", "prod"])).stdout
      .trim()
      .split("\n")
      .at(-1) as string;
    expect(key).toMatch(/^rf_/);

    const client = modernClient(`${origin}/api/mcp`, { token: key });
    const created = await client.result("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "P-1", amount: 120, currency: "EUR" },
    });
    expect(created).toMatchObject({ resultType: "task" });
    const waiting = await client.waitFor(created.taskId, ["input_required"], 60_000);
    expect(Object.keys(waiting.inputRequests)).toEqual(["decision"]);
    await client.result("tasks/update", {
      taskId: created.taskId,
      inputResponses: { decision: { action: "accept", content: { decision: "approve", comment: "in budget" } } },
    });
    const done = await client.waitFor(created.taskId, ["completed", "failed"], 60_000);
    expect(done.status).toBe("completed");
    expect(done.result.structuredContent).toEqual({ expenseId: "P-1", decision: "approved", comment: "in budget" });
    outputs.push(workerProcess.output());
  });

  it("with RUNIFOLD_SEED=admin the store holds no demo, and the admin password was never printed or logged", async () => {
    expect((await db.sql`SELECT slug FROM tenants ORDER BY slug`).map((row) => row.slug)).toEqual(["team-prod"]);
    expect(password).toBeTruthy();
    outputs.push(server?.output() ?? "");
    for (const output of outputs) expect(output).not.toContain(password as string);
  });
});
