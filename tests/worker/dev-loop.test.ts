import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRun, writeDevFile } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { ROOT, waitForExit } from "../helpers/processes";
import { waitForRunStatus, wakeSleepingRun } from "../helpers/runs";
import { waitFor, waitForValue } from "../helpers/wait-for";
import { stopWorker, WORKER_BIN } from "./worker-bin";

/**
 * `runifold-worker --workflows workflows.ts --dev` as a team runs it in its own project: a temporary
 * project folder (ESM, TypeScript, a local import) with a `.runifold/dev.json` pointing at this
 * file's database, the bin in a real process that supervises real worker processes, edits on disk.
 */
const TENANT = "00000000-0000-4000-8000-0000000000e4";

let db: Awaited<ReturnType<typeof freshDatabase>>;
const projects: string[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  await db.sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'dev-loop', 'Dev loop')`;
});
afterAll(async () => {
  await db.drop();
  for (const dir of projects) rmSync(dir, { recursive: true, force: true });
});

/** A project folder outside the repository: ESM, and the repository's node_modules as its own. */
function project(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "runifold-dev-loop-"));
  projects.push(dir);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

function workflowsSource(suffix: string): string {
  return `import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";
import { GREETING } from "./greeting";

export default [
  defineWorkflow({
    name: "dev-greet",
    version: 1,
    input: z.object({ pauseMs: z.number().int().min(0).default(0), nap: z.boolean().default(false) }),
    async run(ctx, input) {
      if (input.nap) await ctx.sleep("nap", 3_600_000);
      await ctx.step("pause", () => new Promise((resolve) => setTimeout(resolve, input.pauseMs)));
      const text = \`\${GREETING} ${suffix}\`; // in the body: a change the code fingerprint sees
      return { content: [{ type: "text", text }], structuredContent: { text, pid: process.pid } };
    },
  }),
];
`;
}

type Dev = ChildProcess & { output: () => string };

function startDev(cwd: string, env: Record<string, string> = {}): Dev {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, WORKER_BIN), "--workflows", "workflows.ts", "--dev"],
    {
      cwd,
      env: {
        ...process.env,
        // The fixture's @runifold/sdk resolves to the repository's sources (tsconfig paths).
        TSX_TSCONFIG_PATH: path.join(ROOT, "tsconfig.json"),
        RUNIFOLD_LOG_LEVEL: "warn",
        RUNIFOLD_POLL_MS: "200",
        RUNIFOLD_WEBHOOKS: "off",
        DATABASE_URL: "", // the test runner's own: the dev file is what this test is about
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  return Object.assign(child, { output: () => output });
}

async function greet(input: Record<string, unknown>) {
  return createRun(db.sql, { tenantId: TENANT, workflowName: "dev-greet", workflowVersion: 1, input });
}

async function resultOf(runId: string): Promise<{ text: string; pid: number }> {
  await waitForRunStatus(db.sql, runId, "completed", 30_000);
  const [done] = await db.sql`SELECT payload FROM run_events WHERE run_id = ${runId} AND type = 'completed'`;
  return done?.payload.result.structuredContent;
}

/** Waits until the output has `text` `times` times; fails with the output if the supervisor exits first. */
async function waitForOutput(dev: Dev, text: string, times = 1) {
  try {
    await waitFor(
      () => {
        if (dev.exitCode !== null) throw new Error(`runifold-worker --dev exited (${dev.exitCode})`);
        return dev.output().split(text).length - 1;
      },
      (seen) => seen >= times,
      { describe: `"${text}" ×${times} in the output`, timeoutMs: 45_000 },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; the output:\n${dev.output()}`);
  }
}

describe("runifold-worker --dev", () => {
  it("serves a .ts module against the dev file's store, reloads on a change to it or its imports, and loses no run in flight", async () => {
    const dir = project();
    writeFileSync(path.join(dir, "greeting.ts"), `export const GREETING: string = "hello";\n`);
    writeFileSync(path.join(dir, "workflows.ts"), workflowsSource("v1"));
    const databaseUrl = db.url;
    const consoleUrl = "http://127.0.0.1:3999";
    writeDevFile(dir, {
      databaseUrl,
      consoleUrl,
      mcpUrl: `${consoleUrl}/api/mcp`,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    });
    const dev = startDev(dir);
    try {
      await waitForOutput(
        dev,
        "changed code is published even while runs of its name@version are live (RUNIFOLD_ACCEPT_CODE_CHANGE=*)",
      );
      expect(dev.output()).toContain(
        `serving workflows.ts against the dev server's store (.runifold${path.sep}dev.json, pid ${process.pid}; console ${consoleUrl})`,
      );
      const first = await resultOf((await greet({})).id);
      expect(first.text).toBe("hello v1");
      expect(first.pid).not.toBe(dev.pid); // served by the supervised child, not the supervisor

      // In flight during the reload: one in the middle of a step, one asleep (live, on no worker).
      const inFlight = await greet({ pauseMs: 3000 });
      const asleep = await greet({ nap: true });
      await waitForRunStatus(db.sql, inFlight.id, "leased");
      await waitForRunStatus(db.sql, asleep.id, "sleeping");

      writeFileSync(path.join(dir, "workflows.ts"), workflowsSource("v2"));
      await waitForOutput(dev, "workflows.ts changed: reloading (the worker drains its in-flight attempts first)");
      await waitForOutput(dev, "reloaded: serving the new code");
      // Drained, not dropped: the step under way finished (at least once, on the old code or the new).
      expect((await resultOf(inFlight.id)).text).toMatch(/^hello v[12]$/);
      const second = await resultOf((await greet({})).id);
      expect(second).toMatchObject({ text: "hello v2" });
      expect(second.pid).not.toBe(first.pid);
      // The sleeping run was live: dev mode published the changed code anyway, and said so.
      expect(dev.output()).toContain("changed code published while runs of this version are live");
      const revisions =
        await db.sql`SELECT revision FROM workflow_definition_revisions WHERE name = 'dev-greet' ORDER BY revision`;
      expect(revisions.map((r) => r.revision)).toEqual([1, 2]);
      await wakeSleepingRun(db.sql, asleep.id);
      expect((await resultOf(asleep.id)).text).toBe("hello v2");

      // A local file the module imports is watched too.
      writeFileSync(path.join(dir, "greeting.ts"), `export const GREETING: string = "hi";\n`);
      await waitForOutput(dev, "greeting.ts changed: reloading");
      await waitForOutput(dev, "reloaded: serving the new code", 2);
      expect((await resultOf((await greet({})).id)).text).toBe("hi v2");

      // The URL's password (if the test server has one) is never printed.
      const password = new URL(databaseUrl).password;
      if (password) expect(dev.output()).not.toContain(password);
      expect(await stopWorker(dev as Parameters<typeof stopWorker>[0]), dev.output()).toBe(0);
      expect(await db.sql`SELECT id FROM worker_registrations WHERE stopped_at IS NULL`).toHaveLength(0);
    } finally {
      if (dev.exitCode === null) dev.kill("SIGKILL");
    }
  });

  it("refuses to start without a dev file, naming both ways to start a dev server", async () => {
    const dir = project();
    writeFileSync(path.join(dir, "workflows.ts"), workflowsSource("v1"));
    const dev = startDev(dir);
    expect(await waitForExit(dev, 30_000), dev.output()).toBe(3);
    expect(dev.output()).toContain(
      `runifold-worker: no dev server found: no .runifold/dev.json in ${dir} or any folder above it`,
    );
    expect(dev.output()).toContain("`npx @runifold/server dev`");
    expect(dev.output()).toContain("`npm start`");
  });

  it("refuses a dev file whose server is gone, and an explicit DATABASE_URL wins over the file", async () => {
    const dir = project();
    writeFileSync(path.join(dir, "greeting.ts"), `export const GREETING: string = "hello";\n`);
    writeFileSync(path.join(dir, "workflows.ts"), workflowsSource("v1"));
    const gone = spawn(process.execPath, ["-e", ""]);
    await waitForExit(gone);
    const consoleUrl = "http://127.0.0.1:3999";
    const info = { databaseUrl: db.url, consoleUrl, mcpUrl: `${consoleUrl}/api/mcp`, startedAt: new Date().toISOString() };
    writeDevFile(dir, { ...info, pid: gone.pid as number });
    const stale = startDev(dir);
    expect(await waitForExit(stale, 30_000), stale.output()).toBe(3);
    expect(stale.output()).toContain(
      `the dev server that wrote ${path.join(dir, ".runifold", "dev.json")} (pid ${gone.pid}) is not running`,
    );

    const explicit = startDev(dir, { DATABASE_URL: db.url });
    try {
      await waitForOutput(explicit, "against DATABASE_URL from the environment (postgres://postgres");
      expect(explicit.output()).toContain(`${new URL(db.url).host}${new URL(db.url).pathname})`);
      await waitForValue(async () => (await db.sql`SELECT id FROM worker_registrations WHERE stopped_at IS NULL`)[0], {
        describe: "the dev worker to register",
        timeoutMs: 30_000,
      });
      expect(await stopWorker(explicit as Parameters<typeof stopWorker>[0]), explicit.output()).toBe(0);
    } finally {
      if (explicit.exitCode === null) explicit.kill("SIGKILL");
    }
  });
});
