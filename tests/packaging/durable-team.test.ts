import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { McpTaskClient, type TaskView } from "@runifold/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { type McpTestServer, startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { ROOT } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { outsideEnv, packWorkspaces, run, stopGroup } from "./projects";

// Issue 32's team acceptance item: the SDK packed and installed from the tarball into an empty
// project outside this repository, whose own workflow modules (tests/packaging/durable-team) fan out
// to child workflows, loop with ctx.continueAsNew and fix a running version behind ctx.patched. The
// project's installed `runifold-worker` serves them; tools bound with the CLI; an API-key client of
// @runifold/client drives everything over MCP on real HTTP. For patched, runs parked under the first
// build meet a second one: the code guard refuses it until the operator accepts the change, and then
// each run takes the path its history says it took.

const TENANT = "durable-team";
const TEAM_FILES = path.join(ROOT, "tests/packaging/durable-team");
const TOOLS = { fan_out: "sum-of-squares", countdown: "countdown", invoice: "invoice-total" } as const;
const YES = { action: "accept", content: { ok: true } } as const;

let scratch: string;
let project: string;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: McpTestServer;
let key: string;
let worker: ChildProcess | undefined;
let workerOutput = "";
let client: McpTaskClient;
let served: string[] | undefined;

/** The team's `npx runifold-worker --workflows workflows.js`, as it runs in their shell. */
function startWorker(env: Record<string, string> = {}): ChildProcess {
  workerOutput = "";
  const child = spawn(path.join(project, "node_modules/.bin/runifold-worker"), ["--workflows", "workflows.js"], {
    cwd: project,
    env: outsideEnv({ DATABASE_URL: db.url, RUNIFOLD_LOG_LEVEL: "warn", RUNIFOLD_POLL_MS: "200", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (chunk) => {
    workerOutput += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    workerOutput += chunk;
  });
  return child;
}

/** Until the process serves: its registration row is written after the schema check and publishing. */
function registered(child: ChildProcess) {
  return waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`runifold-worker exited (${child.exitCode}):\n${workerOutput}`);
      return db.sql<{ workflows: string[] }[]>`
        SELECT workflows FROM worker_registrations WHERE pid = ${String(child.pid)} AND stopped_at IS NULL`;
    },
    (rows) => rows.length === 1,
    { describe: `runifold-worker ${child.pid} to register`, timeoutMs: 60_000, everyMs: 200 },
  ).then(([row]) => row?.workflows);
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-durable-team-"));
  db = await freshDatabase();
  const tarballs = await packWorkspaces(path.join(scratch, "tarballs"));
  project = path.join(scratch, "team");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "team", private: true, type: "module" }));
  await run("npm", ["install", tarballs.sdk, "zod@4.6.7"], { cwd: project, timeoutMs: 180_000 });
  // The first build: everything but the patched invoice module, which is the second deploy.
  for (const file of readdirSync(TEAM_FILES).filter((name) => name !== "invoice-patched.js"))
    copyFileSync(path.join(TEAM_FILES, file), path.join(project, file));

  const tenantId = (await createTenant(db.sql, { slug: TENANT, name: "Durable team" })).id;
  key = (await createApiKey(db.sql, { tenantId, name: "team" })).token;
  server = await startMcpTestServer(db.sql, { worker: false });
  worker = startWorker();
  served = await registered(worker);
  const bound = await Promise.all(
    Object.entries(TOOLS).map(([tool, workflow]) =>
      runCli(["routes", "add", "--tenant", TENANT, "--tool", tool, "--workflow", workflow, "--version", "1"], {
        DATABASE_URL: db.url,
      }),
    ),
  );
  for (const result of bound) expect(result.code, result.stderr).toBe(0);
  client = await McpTaskClient.connect(server.url, { key, clientInfo: { name: "durable-team", version: "1" } });
}, 420_000);

afterAll(async () => {
  await stopGroup(worker);
  await server?.close();
  await db?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Calls a tool that must become a task, and returns its ID. */
async function startTask(tool: keyof typeof TOOLS, args: Record<string, unknown>): Promise<string> {
  const outcome = await client.callToolOutcome(tool, args);
  if (outcome.kind !== "task") throw new Error(`${tool} answered ${JSON.stringify(outcome)}, not a task`);
  return outcome.task.taskId;
}

/** Follows a task to its end (answering every question with `ok: true` when `answer`); its structuredContent. */
async function finish(taskId: string, answer = false): Promise<Record<string, unknown> | undefined> {
  const done = await client.waitTask(taskId, { deadlineMs: 60_000, ...(answer ? { onInputRequest: () => YES } : {}) });
  if (done.kind !== "completed" || done.isError) throw new Error(`task ${taskId} ended ${JSON.stringify(done)}`);
  return done.result.structuredContent;
}

/** Until the task asks exactly `keys` (over MCP). */
function asking(taskId: string, keys: string[]): Promise<TaskView> {
  return waitFor(
    () => client.getTask(taskId),
    (task) => task.status === "input_required" && JSON.stringify(Object.keys(task.inputRequests ?? {})) === JSON.stringify(keys),
    { describe: `task ${taskId} to ask ${keys.join(", ")}`, timeoutMs: 30_000, everyMs: 100 },
  );
}

describe("a team's packed workflows over MCP", { timeout: 180_000 }, () => {
  it("serves what the team's module defines, from the installed bin", () => {
    expect(served).toEqual(expect.arrayContaining(["square@1", "sum-of-squares@1", "countdown@1", "invoice-total@1"]));
  });

  it("fans out to child workflows and combines their results in the parent's", async () => {
    const parentId = await startTask("fan_out", { numbers: [2, 3, 4] });
    const result = (await finish(parentId)) as { squares: number[]; total: number; childTaskIds: string[] };
    expect(result).toMatchObject({ squares: [4, 9, 16], total: 29 });
    expect(new Set([parentId, ...result.childTaskIds]).size).toBe(4);

    // The children are tasks of their own, linked to the parent, that the same credential follows.
    const parent = await modernClient(server.url, { token: key }).result("tasks/get", { taskId: parentId });
    expect([...parent._meta["io.runifold/taskLinks"].childTaskIds].sort()).toEqual([...result.childTaskIds].sort());
    const children = await Promise.all(result.childTaskIds.map((id) => client.getTask(id)));
    expect(children.map((child) => [child.status, child.result?.structuredContent])).toEqual([
      ["completed", { n: 2, value: 4 }],
      ["completed", { n: 3, value: 9 }],
      ["completed", { n: 4, value: 16 }],
    ]);
    const rows = await db.sql`SELECT workflow_name FROM runs WHERE parent_run_id = ${parentId}`;
    expect(rows.map((row) => row.workflow_name)).toEqual(["square", "square", "square"]);
  });

  it("continues a loop as new three times as one task, from its first snapshot to its result", async () => {
    const taskId = await startTask("countdown", { from: 3 });
    const seen: TaskView[] = [];
    for await (const snapshot of client.listenTasks([taskId])) seen.push(snapshot);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen.map((snapshot) => snapshot.taskId))).toEqual(new Set([taskId]));
    expect(seen.slice(0, -1).every((snapshot) => snapshot.status === "working")).toBe(true);
    expect(seen.at(-1)?.status).toBe("completed");
    // The same step key every generation gives each its own value: each started on an empty history.
    expect(await finish(taskId)).toEqual({ generations: 3, trail: [3, 2, 1, 0] });

    const [row] = await db.sql`SELECT generation, status FROM runs WHERE id = ${taskId}`;
    expect(row).toEqual({ generation: 3, status: "completed" });
    expect(await db.sql`SELECT 1 FROM runs WHERE workflow_name = 'countdown'`).toHaveLength(1);
    const transitions = await db.sql`SELECT 1 FROM run_events WHERE run_id = ${taskId} AND type = 'continued_as_new'`;
    expect(transitions).toHaveLength(3);
  });

  it("keeps runs that passed a patch point on the old path after the patched build is deployed", async () => {
    // Under the first build: one run past the point where the total is computed, one before it.
    const past = await startTask("invoice", { amount: 100 });
    const before = await startTask("invoice", { amount: 200 });
    await asking(past, ["review"]);
    await client.updateTask(past, { review: YES });
    await asking(past, ["send"]);
    await asking(before, ["review"]);

    await stopGroup(worker);
    copyFileSync(path.join(TEAM_FILES, "invoice-patched.js"), path.join(project, "invoice.js"));
    // Changed code under live runs: refused until the operator accepts it.
    const bin = path.join(project, "node_modules/.bin/runifold-worker");
    const refused = await run(bin, ["--workflows", "workflows.js"], {
      cwd: project,
      env: outsideEnv({ DATABASE_URL: db.url, RUNIFOLD_LOG_LEVEL: "warn" }),
      allowFailure: true,
      timeoutMs: 60_000,
    });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain("invoice-total@1 is already published with different workflow code");
    worker = startWorker({ RUNIFOLD_ACCEPT_CODE_CHANGE: "invoice-total@1" });
    await registered(worker);
    expect(await db.sql`SELECT 1 FROM workflow_definition_revisions WHERE name = 'invoice-total'`).toHaveLength(2);

    await client.updateTask(past, { send: YES });
    expect(await finish(past)).toEqual({ path: "old", total: 100 });
    expect(await finish(before, true)).toEqual({ path: "new", total: 240 });
    const fresh = await startTask("invoice", { amount: 50 });
    expect(await finish(fresh, true)).toEqual({ path: "new", total: 60 });

    const history = async (taskId: string) =>
      (await db.sql`SELECT key FROM run_steps WHERE run_id = ${taskId} AND key NOT LIKE 'input:%' ORDER BY key`).map(
        (row) => row.key,
      );
    expect(await history(past)).toEqual(["total"]);
    expect(await history(before)).toEqual(["patched:add-tax", "total-with-tax"]);
    expect(await history(fresh)).toEqual(["patched:add-tax", "total-with-tax"]);
  });
});
