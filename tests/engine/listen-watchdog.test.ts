import { CHANNELS, cancelRun, createRegistry, createWorker, defineWorkflow, silentLogger } from "@runifold/sdk";
import { createDb, type Sql, watchedListen } from "@runifold/store";
import postgres from "postgres";
import { afterAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { getTaskFeed } from "../../lib/tasks";
import { slowSteps } from "../fixtures/engine-workflows";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/**
 * The LISTEN watchdog (issue 35, docs/deploy.md "High availability"): a listen connection that is
 * killed (pg_terminate_backend, as a failover does to every connection of the old primary) or goes
 * silent (its backend stopped: no close, no error) is replaced, and what changed meanwhile still
 * reaches the worker and the web's task feed — well before any fallback poll could have found it.
 */
const store = engineStore();
const pools: Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end({ timeout: 1 })));
});

function pool(name: string): Sql {
  const { sql } = createDb(store.url, { max: 4, name });
  pools.push(sql);
  return sql;
}

/** The backend pids of the listen connections `name`'s pool opened (this test file's database only). */
async function listenBackends(name: string): Promise<number[]> {
  const rows = await store.sql<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE application_name = ${`${name}-listen`} AND datname = current_database()`;
  return rows.map((r) => r.pid);
}

/**
 * Refuses new connections to this test's database for `ms` while the listen connection is killed:
 * the first re-listen fails, as it does while a failover has no writable host yet (postgres.js's own
 * sql.listen tries once and then never listens again).
 */
async function terminateListenDuringOutage(name: string, ms = 1_000): Promise<number> {
  const [{ db } = { db: "" }] = await store.sql<{ db: string }[]>`SELECT current_database() AS db`;
  // A database cannot refuse connections to itself from one of its own sessions: the admin database does it.
  const admin = postgres(inject("adminDatabaseUrl"), { max: 1, onnotice: () => {} });
  await admin.unsafe(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS false`);
  try {
    const pid = await terminateListen(name);
    await new Promise((r) => setTimeout(r, ms));
    return pid;
  } finally {
    await admin.unsafe(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS true`);
    await admin.end({ timeout: 1 });
  }
}

async function terminateListen(name: string): Promise<number> {
  const [pid] = await waitFor(
    () => listenBackends(name),
    (pids) => pids.length === 1,
    { describe: `one listen connection of ${name}` },
  );
  await store.sql`SELECT pg_terminate_backend(${pid as number})`;
  return pid as number;
}

/**
 * Stops the listen connection's backend (a process of this machine's PostgreSQL): it keeps its socket
 * open and answers nothing, as a connection to a host that vanished behind a dead route does — no
 * close, no error, which postgres.js's own sql.listen never notices. Returns how to let it go on.
 */
async function silenceListen(name: string): Promise<() => void> {
  const [pid] = await waitFor(
    () => listenBackends(name),
    (pids) => pids.length === 1,
    { describe: `one listen connection of ${name}` },
  );
  process.kill(pid as number, "SIGSTOP");
  return () => process.kill(pid as number, "SIGCONT");
}

const quick = defineWorkflow({
  name: "listen-watchdog-quick",
  version: 1,
  input: z.object({}),
  async run() {
    return { content: [{ type: "text", text: "done" }] };
  },
});

describe("watchedListen", () => {
  it("re-listens on a fresh connection after its backend is terminated (retrying while the store refuses connections), and hears what is notified after", async () => {
    const sql = pool("wl-terminated");
    const heard: string[] = [];
    const listens: boolean[] = [];
    const listening = watchedListen(sql, { wl_test: (p) => heard.push(p) }, { onListen: (r) => listens.push(r) });
    try {
      await listening.ready;
      await sql`SELECT pg_notify('wl_test', 'before')`;
      await waitFor(
        () => heard.length,
        (n) => n === 1,
        { describe: "the first notification" },
      );
      const killed = await terminateListenDuringOutage("wl-terminated");
      await waitFor(
        () => listens,
        (l) => l.length === 2,
        { describe: "the re-subscribe", timeoutMs: 5_000 },
      );
      expect(listens).toEqual([false, true]);
      expect(listening.resubscribes()).toBe(1);
      expect(await listenBackends("wl-terminated")).not.toContain(killed);
      await sql`SELECT pg_notify('wl_test', 'after')`;
      await waitFor(
        () => heard,
        (h) => h.includes("after"),
        { describe: "the notification after the re-subscribe" },
      );
    } finally {
      await listening.stop();
    }
  });

  it("replaces a listen connection that went silent (its backend stopped) once a heartbeat is not heard", async () => {
    const sql = pool("wl-silent");
    const heard: string[] = [];
    const reasons: string[] = [];
    const listening = watchedListen(
      sql,
      { wl_silent: (p) => heard.push(p) },
      { onListen: () => {}, onReplace: (r) => reasons.push(r), heartbeatMs: 500, timeoutMs: 1_000 },
    );
    let resume = () => {};
    try {
      await listening.ready;
      resume = await silenceListen("wl-silent");
      await waitFor(
        () => listening.resubscribes(),
        (n) => n >= 1,
        { describe: "a re-subscribe", timeoutMs: 5_000 },
      );
      expect(reasons).toContain("heartbeat not heard");
      await sql`SELECT pg_notify('wl_silent', 'after')`;
      await waitFor(
        () => heard,
        (h) => h.includes("after"),
        { describe: "the notification after the re-subscribe" },
      );
    } finally {
      resume();
      await listening.stop();
    }
  });
});

describe("the worker's LISTEN", () => {
  it("is re-established after its backend is killed during an outage or goes silent: runs created meanwhile start long before the poll", async () => {
    const sql = pool("wl-worker");
    const worker = createWorker({
      sql,
      registry: createRegistry([quick]),
      logger: silentLogger,
      pollMs: 60_000, // no poll within the test: only a NOTIFY (or the re-subscribe's catch-up) can start the run
      listenHeartbeatMs: 500,
      lastResortHandlers: false,
    });
    await worker.start();
    try {
      const first = await store.create(quick, {});
      await store.waitForStatus(first.id, "completed", 5_000);
      await terminateListenDuringOutage("wl-worker");
      const second = await store.create(quick, {});
      await store.waitForStatus(second.id, "completed", 5_000);
      // Silent: only the heartbeat finds it; the run created meanwhile starts once the worker re-listens.
      const resume = await silenceListen("wl-worker");
      try {
        const third = await store.create(quick, {});
        await store.waitForStatus(third.id, "completed", 5_000);
      } finally {
        resume();
      }
      const fourth = await store.create(quick, {});
      await store.waitForStatus(fourth.id, "completed", 5_000);
    } finally {
      await worker.stop(500);
    }
  });
  it("aborts a run cancelled while its LISTEN was silent once it re-subscribes, long before the lease renewal would notice", async () => {
    const sql = pool("wl-cancel");
    const worker = createWorker({
      sql,
      registry: createRegistry([slowSteps]),
      logger: silentLogger,
      pollMs: 60_000,
      leaseMs: 60_000, // the lease keeper renews (and would see the cancel) only every 20 s
      listenHeartbeatMs: 500,
      lastResortHandlers: false,
    });
    await worker.start();
    try {
      const run = await store.create(slowSteps, { slowMs: 30_000 });
      await waitFor(
        () => store.stepRuns(run.id, "slow"),
        (n) => n === 1,
        { describe: "the slow step to start" },
      );
      const resume = await silenceListen("wl-cancel");
      try {
        // The NOTIFY on the cancel channel goes to the stopped backend: only the re-subscribe's re-read finds it.
        await cancelRun(store.sql, { runId: run.id });
        await waitFor(
          () => store.stepRuns(run.id, "slow-aborted"),
          (n) => n === 1,
          { describe: "the step's signal to abort after the re-subscribe", timeoutMs: 8_000 },
        );
      } finally {
        resume();
      }
    } finally {
      await worker.stop(500);
    }
  });
});

describe("the web's task feed", () => {
  it("is re-established after its backend is killed during an outage or goes silent: subscribers are poked, then hear notifications again", async () => {
    const sql = pool("wl-feed");
    const feed = await getTaskFeed(sql);
    const taskId = "00000000-0000-4000-8000-0000000000f1";
    let calls = 0;
    const unsubscribe = feed.subscribe(taskId, () => {
      calls++;
    });
    try {
      await sql`SELECT pg_notify(${CHANNELS.task}, ${taskId})`;
      await waitFor(
        () => calls,
        (n) => n === 1,
        { describe: "the first notification" },
      );
      await terminateListenDuringOutage("wl-feed");
      // The re-subscribe pokes every subscriber once (what was notified in the gap is gone).
      await waitFor(
        () => calls,
        (n) => n === 2,
        { describe: "the poke after the re-subscribe", timeoutMs: 5_000 },
      );
      await sql`SELECT pg_notify(${CHANNELS.task}, ${taskId})`;
      await waitFor(
        () => calls,
        (n) => n === 3,
        { describe: "a notification after the re-subscribe" },
      );
      // Silent: the heartbeat (every 5 s, 5 s to come back) finds it, and the re-subscribe pokes again.
      const resume = await silenceListen("wl-feed");
      try {
        await sql`SELECT pg_notify(${CHANNELS.task}, ${taskId})`;
        await waitFor(
          () => calls,
          (n) => n >= 4,
          { describe: "the poke after the silent connection is replaced", timeoutMs: 15_000 },
        );
      } finally {
        resume();
      }
      await sql`SELECT pg_notify(${CHANNELS.task}, ${taskId})`;
      await waitFor(
        () => calls,
        (n) => n >= 5,
        { describe: "a notification after the second re-subscribe" },
      );
    } finally {
      unsubscribe();
    }
  });
});
