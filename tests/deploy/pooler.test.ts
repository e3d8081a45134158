import { runWorker } from "@runifold/sdk";
import { createDb, type DbPooler, type Sql } from "@runifold/store";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readEnv } from "../../lib/env";
import { runRetention } from "../../lib/retention";
import { getTaskFeed } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { engineStore } from "../engine/support/harness";
import { chargeLoop } from "../fixtures/engine-workflows";
import { startMcpTestServer, startShippedWorker } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { type PgBouncer, pgbouncerInstalled, startPgBouncer } from "../helpers/pgbouncer";
import { spawnTs, waitForExit } from "../helpers/processes";
import { wakeSleepingRun } from "../helpers/runs";
import { waitFor, waitForValue } from "../helpers/wait-for";

/**
 * Connection poolers (issue 35; DESIGN §8 "Database"; docs/deploy.md "Connection poolers"): the web
 * tier behind Debian's PgBouncer in transaction mode with RUNIFOLD_DB_POOLER=transaction and a direct
 * URL, a worker behind session mode with RUNIFOLD_DB_POOLER=session — and what breaks without the
 * setting, so the setting is shown to be needed. PgBouncer runs as this test's own process; .ci/run
 * installs it, so only a machine without the package skips (never CI).
 */
const installed = pgbouncerInstalled();
const skip = !installed && !process.env.CI;
if (skip) console.warn("tests/deploy/pooler.test.ts skipped: /usr/sbin/pgbouncer is missing (apt-get install pgbouncer)");

const store = engineStore();
let transaction: PgBouncer;
let session: PgBouncer;
let token: string;
const ended: Sql[] = [];

/** A pool as the web makes it (createDb), through `url`, ended after the file. */
function webPool(url: string, pooler?: DbPooler) {
  const made = createDb(url, { max: 6, name: "runifold-pooler-test", pooler });
  ended.push(made.sql, ...(made.direct ? [made.direct] : []));
  return made.sql;
}

/** Resolves with how many times `subscribe`'s listener was called after a notification for `taskId`. */
async function listenerCount(sql: Sql, taskId: string): Promise<{ count(): number; stop(): void }> {
  let calls = 0;
  const stop = (await getTaskFeed(sql)).subscribe(taskId, () => {
    calls += 1;
  });
  return { count: () => calls, stop };
}

describe.skipIf(skip)("behind PgBouncer", () => {
  beforeAll(async () => {
    if (!installed) throw new Error("/usr/sbin/pgbouncer is missing: .ci/run installs it (apt-get install pgbouncer)");
    token = (await seedDemo(store.sql)).apiKey as string;
    transaction = await startPgBouncer(store.url, { mode: "transaction", poolSize: 2 });
    // Session mode holds a server session per client connection: room for a worker's 13 (docs/deploy.md "Sizing") and the fixtures' step log.
    session = await startPgBouncer(store.url, { mode: "session", poolSize: 20 });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(ended.map((sql) => sql.end({ timeout: 1 })));
    await transaction?.stop();
    await session?.stop();
  });

  it("transaction mode with the setting: the web's MCP handler creates a task, a direct worker runs it, tasks/get and subscriptions/listen see it complete", async () => {
    const web = webPool(transaction.url, { mode: "transaction", directUrl: store.url });
    const server = await startMcpTestServer(web, { worker: false });
    const worker = await startShippedWorker(store.sql);
    try {
      const client = modernClient(server.url, { token });
      const created = await client.result("tools/call", {
        name: "durable_report",
        arguments: { report_id: "pooled", settle_ms: 600_000 },
      });
      expect(created).toMatchObject({ resultType: "task", status: "working" });
      const stream = await client.stream("subscriptions/listen", { notifications: { taskIds: [created.taskId] } });
      await stream.next((e) => e.method === "notifications/tasks");
      await wakeSleepingRun(store.sql, created.taskId);
      await stream.done;
      const tasks = stream.events.filter((e) => e.method === "notifications/tasks").map((e) => e.params);
      expect(tasks.at(-1)).toMatchObject({ status: "completed", result: { structuredContent: { reportId: "pooled" } } });
      const done = await client.waitFor(created.taskId, ["completed", "failed"]);
      expect(done).toMatchObject({ status: "completed", result: { structuredContent: { reportId: "pooled" } } });
      // Many requests at once share the pooler's two server sessions, statement after statement.
      const reads = await Promise.all(Array.from({ length: 30 }, () => client.result("tasks/get", { taskId: created.taskId })));
      expect(reads.every((task) => task.status === "completed")).toBe(true);
    } finally {
      await server.close();
      await worker.stop(500);
    }
  });

  it("transaction mode with the setting: a burst of 20 creations and 10 answered approvals through the pooler completes with 0 errors", async () => {
    const web = webPool(transaction.url, { mode: "transaction", directUrl: store.url });
    const server = await startMcpTestServer(web, { worker: false });
    const worker = await startShippedWorker(store.sql);
    try {
      const client = modernClient(server.url, { token });
      const reports = Array.from({ length: 20 }, (_, i) =>
        client.result("tools/call", { name: "durable_report", arguments: { report_id: `burst-${i}`, settle_ms: 0 } }),
      );
      const approvals = Array.from({ length: 10 }, async (_, i) => {
        const created = await client.result("tools/call", {
          name: "approve_expense",
          arguments: { expense_id: `B-${i}`, amount: i + 1 },
        });
        await client.waitFor(created.taskId, ["input_required"]);
        await client.result("tasks/update", {
          taskId: created.taskId,
          inputResponses: { decision: { action: "accept", content: { decision: "approve", comment: `ok ${i}` } } },
        });
        return created;
      });
      const created = await Promise.all([...reports, ...approvals]);
      const done = await Promise.all(
        created.map((task) => client.waitFor(task.taskId, ["completed", "failed", "cancelled"], 60_000)),
      );
      expect(done.filter((task) => task.status !== "completed")).toEqual([]);
      expect(done.slice(20).map((task) => task.result.structuredContent.decision)).toEqual(Array(10).fill("approved"));
    } finally {
      await server.close();
      await worker.stop(500);
    }
  }, 90_000);

  it("transaction mode with the setting: notifications reach the web through the direct URL, and so does the retention lock", async () => {
    const web = webPool(transaction.url, { mode: "transaction", directUrl: store.url });
    const taskId = "00000000-0000-4000-8000-0000000000a1";
    const listener = await listenerCount(web, taskId);
    try {
      // The feed fires on notifications only (no polling inside it), so a call proves LISTEN works.
      await waitFor(
        async () => {
          await store.sql`SELECT pg_notify('runifold_task', ${taskId})`;
          return listener.count();
        },
        (n) => n > 0,
        { describe: "the web's task feed to hear a NOTIFY", timeoutMs: 10_000, everyMs: 200 },
      );
    } finally {
      listener.stop();
    }
    // The retention cleaner's session lock is held on the direct URL, on a session of its own —
    // not on one of PgBouncer's shared ones — and a second cleaner meanwhile steps aside.
    let holder: { application_name: string; granted: boolean } | undefined;
    let second: string | undefined;
    const pass = await runRetention(web, {
      holder: "pooler-test",
      hooks: {
        afterLock: async ({ backendPid }) => {
          [holder] = await store.sql<{ application_name: string; granted: boolean }[]>`
            SELECT a.application_name, l.granted FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.pid = ${backendPid}`;
          second = (await runRetention(web, { holder: "pooler-test-2" })).status;
        },
      },
    });
    expect(pass.status).toBe("completed");
    expect(holder).toEqual({ application_name: "runifold-retention-lock", granted: true });
    expect(second).toBe("skipped");
    // Without a direct URL there is no session to lock in: the fence alone decides.
    let pid: number | undefined;
    const fenced = await runRetention(webPool(transaction.url, { mode: "transaction" }), {
      holder: "pooler-test-3",
      hooks: {
        afterLock: async ({ backendPid }) => {
          pid = backendPid;
        },
      },
    });
    expect({ status: fenced.status, pid }).toEqual({ status: "completed", pid: 0 });
  });

  it("transaction mode without the setting: LISTEN through the pooler hears nothing, and concurrent named statements stall or fail", async () => {
    const plain = webPool(transaction.url);
    const taskId = "00000000-0000-4000-8000-0000000000a2";
    const pooled = await listenerCount(plain, taskId);
    const direct = await listenerCount(store.sql, taskId);
    try {
      // The same NOTIFYs reach a listener on the server itself; the one through PgBouncer's
      // transaction mode LISTENed without an error and hears none of them.
      await waitFor(
        async () => {
          await store.sql`SELECT pg_notify('runifold_task', ${taskId})`;
          return direct.count();
        },
        (n) => n >= 5,
        { describe: "5 notifications on the direct listener", timeoutMs: 10_000, everyMs: 100 },
      );
      expect(pooled.count()).toBe(0);
    } finally {
      pooled.stop();
      direct.stop();
    }
    // postgres.js prepares named statements by default; through transaction pooling a statement
    // prepared on one server session is executed on another, and a batch of concurrent reads never
    // finishes. The same batch with the setting (prepare: false) completes.
    const batch = (sql: Sql) =>
      Promise.race([
        Promise.all(
          Array.from({ length: 40 }, (_, i) => sql`SELECT ${i}::int AS n, count(*)::int AS c FROM runs WHERE id <> ${taskId}`),
        ).then(
          () => "completed",
          (error: Error) => `failed: ${error.message}`,
        ),
        new Promise<string>((resolve) => setTimeout(() => resolve("stalled"), 10_000)),
      ]);
    const without = await batch(plain);
    console.log(`[pooler] 40 concurrent reads through transaction pooling without the setting: ${without}`);
    expect(without).toMatch(/^(stalled|failed: prepared statement ".+" does not exist)$/);
    expect(await batch(webPool(transaction.url, { mode: "transaction", directUrl: store.url }))).toBe("completed");
  }, 40_000);

  it("session mode: a worker runs a workflow with RUNIFOLD_DB_POOLER=session, and without it PgBouncer refuses its lease pool", async () => {
    const refused = spawnTs("tests/helpers/test-worker-process.ts", { DATABASE_URL: session.url, RUNIFOLD_POLL_MS: "200" });
    try {
      await waitForValue(() => refused.output().includes("unsupported startup parameter: plan_cache_mode"), {
        describe: "the worker's lease pool to be refused by PgBouncer",
        timeoutMs: 20_000,
      });
    } finally {
      refused.kill("SIGKILL");
      await waitForExit(refused);
    }
    const worker = spawnTs("tests/helpers/test-worker-process.ts", {
      DATABASE_URL: session.url,
      RUNIFOLD_DB_POOLER: "session",
      RUNIFOLD_POLL_MS: "200",
    });
    try {
      const run = await store.create(chargeLoop, { n: 3, slowAt: 0, slowMs: 0 });
      await store.waitForStatus(run.id, "completed", 30_000);
    } finally {
      worker.kill("SIGTERM");
      await waitForExit(worker);
    }
    expect(worker.output()).not.toContain("unsupported startup parameter");
  }, 60_000);
});

describe("RUNIFOLD_DB_POOLER", () => {
  it("fails the web's start-up naming the variable for a value it does not know, or a direct URL without transaction mode", () => {
    const url = "postgres://u@127.0.0.1:5432/db";
    expect(() => readEnv({ DATABASE_URL: url, RUNIFOLD_DB_POOLER: "statement" })).toThrow(/RUNIFOLD_DB_POOLER/);
    expect(() => readEnv({ DATABASE_URL: url, RUNIFOLD_DIRECT_DATABASE_URL: url })).toThrow(
      /RUNIFOLD_DIRECT_DATABASE_URL: only read with RUNIFOLD_DB_POOLER=transaction/,
    );
    expect(() =>
      readEnv({ DATABASE_URL: url, RUNIFOLD_DB_POOLER: "transaction", RUNIFOLD_DIRECT_DATABASE_URL: "db:5432" }),
    ).toThrow(/RUNIFOLD_DIRECT_DATABASE_URL/);
    expect(readEnv({ DATABASE_URL: url, RUNIFOLD_DB_POOLER: "transaction", RUNIFOLD_DIRECT_DATABASE_URL: url })).toMatchObject({
      RUNIFOLD_DB_POOLER: "transaction",
      RUNIFOLD_DIRECT_DATABASE_URL: url,
    });
    expect(readEnv({ DATABASE_URL: url }).RUNIFOLD_DB_POOLER).toBe("none");
  });

  it("refuses transaction mode and unknown values for a worker at start-up, naming the variable (exit 3)", async () => {
    const url = "postgres://u@127.0.0.1:5432/db";
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await runWorker({ workflows: [], env: { DATABASE_URL: url, RUNIFOLD_DB_POOLER: "transaction" } })).toBe(3);
      expect(await runWorker({ workflows: [], env: { DATABASE_URL: url, RUNIFOLD_DB_POOLER: "pgbouncer" } })).toBe(3);
      const written = stderr.mock.calls.map(([chunk]) => String(chunk));
      expect(written[0]).toMatch(/^runifold-worker: RUNIFOLD_DB_POOLER: transaction is for the web tier/);
      expect(written[1]).toMatch(/^runifold-worker: RUNIFOLD_DB_POOLER: /);
    } finally {
      stderr.mockRestore();
    }
  });
});
