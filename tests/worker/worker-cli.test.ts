import net, { type AddressInfo } from "node:net";
import { createRun, describeDefinition, KNOWN_MIGRATIONS } from "@runifold/sdk";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { echo, shout } from "../fixtures/worker-modules/good";
import { freshDatabase } from "../helpers/db";
import { withDatabase } from "../helpers/global-setup";
import { waitForExit } from "../helpers/processes";
import { waitForRunStatus } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";
import { registrationOf, runToExit, startWorker, WORKER_MODULES } from "./worker-bin";

/**
 * The SDK's bin as a team runs it: a real `node --import tsx` process per case, against real
 * databases (a migrated one per file, plus an empty one, a partly migrated one and a "newer" one).
 */
const TENANT = "00000000-0000-4000-8000-0000000000c1";

let db: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  db = await freshDatabase();
  await db.sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'worker-cli', 'Worker CLI')`;
});
afterAll(async () => {
  await db.drop();
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An extra database on the test server, outside the template: created empty, dropped after. */
async function emptyDatabase() {
  const adminUrl = inject("adminDatabaseUrl");
  const name = `t_empty_${process.pid}_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  return {
    url: withDatabase(adminUrl, name),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

describe("runifold-worker: usage", () => {
  it("--help prints the usage on stdout and exits 0", async () => {
    const { code, output } = await runToExit(["--help"], { DATABASE_URL: "" });
    expect(code, output).toBe(0);
    expect(output).toContain("Usage: runifold-worker --workflows <module>");
    expect(output).toContain("DATABASE_URL");
  });

  it("exits 2 without --workflows (and no RUNIFOLD_WORKFLOWS), saying so above the usage", async () => {
    const { code, output } = await runToExit([], { DATABASE_URL: db.url, RUNIFOLD_WORKFLOWS: "" });
    expect(code, output).toBe(2);
    expect(output).toMatch(/runifold-worker: which workflows\? pass --workflows <module>/);
    expect(output).toContain("Usage: runifold-worker");
  });

  it("exits 2 on an unknown argument, naming it", async () => {
    const { code, output } = await runToExit(["--workflows", `${WORKER_MODULES}/good.ts`, "--fast"], { DATABASE_URL: db.url });
    expect(code, output).toBe(2);
    expect(output).toContain("unknown argument: --fast");
  });
});

describe("runifold-worker: a module it cannot serve exits 3, naming the problem", () => {
  it.each([
    ["a module that does not exist", "missing.ts", /workflows module not found: \S*tests\/fixtures\/worker-modules\/missing\.ts/],
    [
      "a module exporting no definitions",
      "empty.ts",
      /empty\.ts exports no workflow definitions: export default \[defineWorkflow/,
    ],
    ["two different definitions under one name@version", "duplicate.ts", /duplicate\.ts: two different definitions of twice@1/],
    ["an invalid name", "invalid-name.ts", /invalid-name\.ts: invalid workflow name "Bad Name"/],
    ["version 0", "version-zero.ts", /version-zero\.ts: zero has version 0; use an integer ≥ 1/],
  ])("%s", async (_case, file, message) => {
    const { code, output, pid } = await runToExit(["--workflows", `${WORKER_MODULES}/${file}`], { DATABASE_URL: db.url });
    expect(output).toMatch(message);
    expect(code, output).toBe(3);
    // Refused before it touched the store: nothing registered.
    expect(await db.sql`SELECT 1 FROM worker_registrations WHERE pid = ${pid}`).toHaveLength(0);
  });
});

describe("runifold-worker: a store it cannot use exits 3, naming the problem", () => {
  it("DATABASE_URL unset", async () => {
    const { code, output } = await runToExit(["--workflows", `${WORKER_MODULES}/good.ts`], { DATABASE_URL: "" });
    expect(code, output).toBe(3);
    expect(output).toContain("DATABASE_URL is not set");
  });

  it("DATABASE_URL that is not a postgres URL", async () => {
    const { code, output } = await runToExit(["--workflows", `${WORKER_MODULES}/good.ts`], { DATABASE_URL: "mysql://db/x" });
    expect(code, output).toBe(3);
    expect(output).toContain("DATABASE_URL: must be a postgres:// URL");
  });

  it("an unreachable database: names the host and never prints the password", async () => {
    const port = await closedPort();
    const { code, output } = await runToExit(["--workflows", `${WORKER_MODULES}/good.ts`], {
      DATABASE_URL: `postgres://runifold:s3cret-pw@127.0.0.1:${port}/runifold`,
    });
    expect(code, output).toBe(3);
    expect(output).toContain(`cannot reach the database at postgres://runifold:***@127.0.0.1:${port}/runifold`);
    expect(output).not.toContain("s3cret-pw");
  });

  it("an unmigrated (empty) database: names the first missing migration and how to apply it", async () => {
    const empty = await emptyDatabase();
    try {
      const { code, output } = await runToExit(["--workflows", `${WORKER_MODULES}/good.ts`], { DATABASE_URL: empty.url });
      expect(code, output).toBe(3);
      expect(output).toContain(`migration ${KNOWN_MIGRATIONS[0]} and ${KNOWN_MIGRATIONS.length - 1} more not applied`);
      expect(output).toContain("db:migrate");
    } finally {
      await empty.drop();
    }
  });

  it("a store one migration behind: names that migration", async () => {
    const behind = await freshDatabase();
    const latest = KNOWN_MIGRATIONS.at(-1) as string;
    try {
      await behind.sql`DELETE FROM runifold_migrations WHERE tag = ${latest}`;
      const { code, output } = await runToExit(["--workflows", `${WORKER_MODULES}/good.ts`], { DATABASE_URL: behind.url });
      expect(code, output).toBe(3);
      expect(output).toContain(`migration ${latest} not applied`);
      expect(output).toContain("db:migrate");
    } finally {
      await behind.drop();
    }
  });
});

describe("runifold-worker: serving", () => {
  it("starts on a store newer than this SDK (migrations only add), with a warning naming the newer migration", async () => {
    const newer = await freshDatabase();
    try {
      await newer.sql`INSERT INTO runifold_migrations (tag, hash) VALUES ('9999_from_a_newer_sdk', 'x')`;
      const child = startWorker(["--workflows", `${WORKER_MODULES}/good.ts`], { DATABASE_URL: newer.url });
      await registrationOf(newer.sql, child);
      const warning = child
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: string; message: string; newer?: string[] })
        .find((entry) => entry.level === "warn" && entry.message.includes("newer"));
      expect(warning?.newer).toEqual(["9999_from_a_newer_sdk"]);
      child.kill("SIGTERM");
      expect(await waitForExit(child), child.output()).toBe(0);
    } finally {
      await newer.drop();
    }
  });

  it("a SIGTERM while it is still starting drains as soon as it serves (exit 0), finishing the runs it claimed", async () => {
    const store = await freshDatabase();
    let unlock = () => {};
    try {
      await store.sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'worker-cli', 'Worker CLI')`;
      const queued = await createRun(store.sql, {
        tenantId: TENANT,
        workflowName: "cli-echo",
        workflowVersion: 1,
        input: { text: "early", pauseMs: 500 },
        definition: echo,
      });
      // Hold start-up in the middle: publishing waits for this lock, as behind a slow migration.
      const held = new Promise<void>((resolve) => {
        unlock = resolve;
      });
      let locked = () => {};
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = store.sql.begin(async (tx) => {
        await tx`LOCK TABLE workflow_definitions IN EXCLUSIVE MODE`;
        locked();
        await held;
      });
      await lockTaken;
      const child = startWorker(["--workflows", `${WORKER_MODULES}/good.ts`], { DATABASE_URL: store.url });
      await waitFor(
        async () =>
          (
            await store.sql`SELECT 1 FROM pg_stat_activity
              WHERE application_name = 'runifold-worker' AND wait_event_type = 'Lock' AND datname = current_database()`
          ).length,
        (waiting) => waiting > 0,
        { describe: "the worker to be waiting on the lock while publishing", timeoutMs: 30_000 },
      );
      child.kill("SIGTERM");
      unlock();
      await holder;
      // It finishes starting (publish, register, claim), then drains what it claimed and exits 0.
      expect(await waitForExit(child, 30_000), child.output()).toBe(0);
      expect((await store.sql`SELECT status FROM runs WHERE id = ${queued.id}`)[0]?.status).toMatch(/^(completed|queued)$/);
      expect(await store.sql`SELECT 1 FROM worker_registrations WHERE stopped_at IS NULL`).toHaveLength(0);
    } finally {
      unlock();
      await store.drop();
    }
  });

  it("a second signal while draining exits at once (130) instead of waiting out the grace period", async () => {
    const store = await freshDatabase();
    // At info level the worker logs "draining", so the test knows the first signal was handled.
    const child = startWorker(["--workflows", `${WORKER_MODULES}/good.ts`], {
      DATABASE_URL: store.url,
      RUNIFOLD_LOG_LEVEL: "info",
    });
    try {
      await store.sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'worker-cli', 'Worker CLI')`;
      await registrationOf(store.sql, child);
      const stuck = await createRun(store.sql, {
        tenantId: TENANT,
        workflowName: "cli-echo",
        workflowVersion: 1,
        input: { text: "long", pauseMs: 60_000 },
        definition: echo,
      });
      await waitForRunStatus(store.sql, stuck.id, "leased");
      child.kill("SIGTERM");
      await waitFor(
        () => child.output(),
        (output) => output.includes('"message":"draining"'),
        { describe: "the worker to log that it drains" },
      );
      const secondSignalAt = Date.now();
      child.kill("SIGINT");
      expect(await waitForExit(child, 30_000), child.output()).toBe(130);
      // The drain's grace is 10 s from the first signal: exiting well inside it means the second
      // signal ended the process (the stuck run pauses for 60 s, so draining could not have).
      expect(Date.now() - secondSignalAt).toBeLessThan(8_000);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await store.drop();
    }
  });

  it("publishes its definitions, registers, runs work, and drains on SIGTERM (exit 0)", async () => {
    const child = startWorker(["--workflows", `${WORKER_MODULES}/good.ts`], { DATABASE_URL: db.url });
    try {
      const registration = await registrationOf(db.sql, child);
      // Default export and named export both served.
      expect([...registration.workflows].sort()).toEqual(["cli-echo@1", "cli-shout@1"]);

      const rows = await db.sql`SELECT * FROM workflow_definitions ORDER BY name`;
      expect(rows.map((row) => `${row.name}@${row.version}`)).toEqual(["cli-echo@1", "cli-shout@1"]);
      const [echoRow, shoutRow] = rows;
      const described = describeDefinition(echo);
      expect(echoRow).toMatchObject({
        revision: 1,
        title: "Echo",
        description: described.description,
        input_schema: described.inputSchema,
        output_schema: described.outputSchema,
        preflight: described.preflight,
        fingerprint: described.fingerprint,
        published_by: registration.id,
      });
      // The input schema is zod's JSON Schema of the input side: defaulted fields are optional.
      expect(echoRow?.input_schema).toMatchObject({
        type: "object",
        properties: { text: { type: "string" }, times: { type: "integer", default: 1 } },
        required: ["text"],
      });
      expect(echoRow?.first_seen_at).toBeInstanceOf(Date);
      expect(echoRow?.last_seen_at).toBeInstanceOf(Date);
      expect(shoutRow).toMatchObject({
        title: null,
        output_schema: null,
        fingerprint: describeDefinition(shout).fingerprint,
        published_by: registration.id,
      });
      const revisions = await db.sql`SELECT name, revision, published_by FROM workflow_definition_revisions ORDER BY name`;
      expect(revisions).toEqual([
        { name: "cli-echo", revision: 1, published_by: registration.id },
        { name: "cli-shout", revision: 1, published_by: registration.id },
      ]);

      const run = await createRun(db.sql, {
        tenantId: TENANT,
        workflowName: "cli-echo",
        workflowVersion: 1,
        input: { text: "hi", times: 2 },
        definition: echo,
      });
      await waitForRunStatus(db.sql, run.id, "completed");
      const [done] = await db.sql`SELECT payload FROM run_events WHERE run_id = ${run.id} AND type = 'completed'`;
      expect(done?.payload.result.structuredContent).toEqual({ echoed: "hi hi", pid: child.pid });

      // A run in the middle of a step when SIGTERM arrives finishes before the process exits 0.
      const slow = await createRun(db.sql, {
        tenantId: TENANT,
        workflowName: "cli-echo",
        workflowVersion: 1,
        input: { text: "drain", pauseMs: 1_500 },
        definition: echo,
      });
      await waitForRunStatus(db.sql, slow.id, "leased");
      child.kill("SIGTERM");
      expect(await waitForExit(child, 30_000), child.output()).toBe(0);
      expect((await db.sql`SELECT status FROM runs WHERE id = ${slow.id}`)[0]?.status).toBe("completed");
      const leasedBy =
        await db.sql`SELECT payload->>'worker' AS worker FROM run_events WHERE run_id = ${slow.id} AND type = 'leased'`;
      expect(leasedBy).toEqual([{ worker: registration.id }]);
      await waitFor(
        async () => (await db.sql`SELECT stopped_at FROM worker_registrations WHERE id = ${registration.id}`)[0]?.stopped_at,
        (stoppedAt) => stoppedAt instanceof Date,
        { describe: "the drained worker to mark itself stopped" },
      );
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
