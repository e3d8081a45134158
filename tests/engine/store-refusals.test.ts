import { createLogger, createRegistry, createWorker, defineWorkflow, type Worker } from "@runifold/sdk";
import { createDb } from "@runifold/store";
import type postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { driverThrows } from "./support/driver-fault-workflow";
import { engineStore } from "./support/harness";

/**
 * A store that refuses writes, or a driver that fails by itself, is a store outage and never the
 * run's failure: what a primary failover does to a worker (tests/faults/primary-failover.test.ts
 * saw both fail runs). Each case here makes it happen on a real PostgreSQL, on one worker with a
 * pool of its own.
 */
const store = engineStore();
const WORKER_POOL = "rf-store-refusals-worker";

let release: () => void = () => {};
let gate = new Promise<void>((resolve) => {
  release = resolve;
});
let executions = 0;

/** Step `a`'s body waits for the test to open the gate: the store's state changes under it. */
const gated = defineWorkflow({
  name: "gated-step",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const value = await ctx.step("a", async () => {
      executions++;
      await gate;
      return "stored";
    });
    return { content: [{ type: "text", text: value }] };
  },
});

/** The in-process worker's log lines (warn and above). */
const logged: string[] = [];
const workers: Worker[] = [];
const pools: postgres.Sql[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(500)));
  await Promise.all(pools.splice(0).map((pool) => pool.end({ timeout: 1 })));
});

async function startWorker(workflow: Parameters<typeof createRegistry>[0][number]) {
  const { sql } = createDb(store.url, { max: 4, name: WORKER_POOL });
  pools.push(sql);
  const logger = createLogger("worker", "warn", { destination: { write: (line: string) => logged.push(line) } });
  const worker = createWorker({ sql, registry: createRegistry([workflow]), logger, leaseMs: 3_000, pollMs: 50 });
  workers.push(worker);
  await worker.start();
}

/** Ends the worker pool's sessions: its next queries open new ones, under the database's settings. */
const dropWorkerSessions = () =>
  store.sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${WORKER_POOL}`;

describe("store refusals during a failover", () => {
  it("a checkpoint refused by a read-only store (SQLSTATE 25006) ends the attempt, not the run", async () => {
    await startWorker(gated);
    const run = await store.create(gated, {});
    await waitFor(
      () => executions,
      (n) => n === 1,
      { describe: "step a to start" },
    );
    const [{ db } = { db: "" }] = await store.sql<{ db: string }[]>`SELECT current_database() AS db`;
    // The worker's new sessions take no writes, as on a hot standby or a node the HA manager holds read-only.
    await store.sql.unsafe(`ALTER DATABASE "${db}" SET default_transaction_read_only = on`);
    try {
      await dropWorkerSessions();
      // The worker's sessions are new ones, refused writes, before the checkpoint is sent.
      await waitFor(
        () => logged.filter((line) => line.includes("in a read-only transaction")).length,
        (n) => n > 0,
        { describe: "the worker's claims to be refused by the read-only store" },
      );
      const before = logged.length;
      release();
      // The checkpoint is refused; a run whose refusal counted as its failure would now be failed.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await store.run(run.id))?.status).not.toBe("failed");
      // The checkpoint itself was refused with 25006, and counted as the store's outage.
      expect(logged.slice(before).join("")).toMatch(
        /"error":"[^"]*cannot execute [^"]* in a read-only transaction","message":"store unavailable; the attempt ends/,
      );
    } finally {
      await store.sql.unsafe(`ALTER DATABASE "${db}" RESET default_transaction_read_only`);
    }
    await dropWorkerSessions();
    const ended = await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
    expect(ended.status, JSON.stringify(ended.failure)).toBe("completed");
    // The body ran again, as at-least-once allows: its first checkpoint was never stored.
    expect(executions).toBe(2);
    expect(await store.events(run.id, "failed")).toHaveLength(0);
    gate = Promise.resolve();
  });

  it("an error the driver throws from its own timer in an attempt's context is a store outage", {
    timeout: 90_000,
  }, async () => {
    const worker = spawnTs("tests/engine/support/driver-fault-worker-process.ts", {
      DATABASE_URL: store.url,
      RUNIFOLD_LEASE_MS: "3000",
      RUNIFOLD_POLL_MS: "50",
      RUNIFOLD_LOG_LEVEL: "warn",
    });
    try {
      const run = await store.create(driverThrows, {});
      const ended = await store.waitForStatus(run.id, ["completed", "failed"], 60_000);
      expect(ended.status, JSON.stringify(ended.failure)).toBe("completed");
      expect(await store.events(run.id, "failed")).toHaveLength(0);
      expect(worker.output()).toMatch(/the store driver threw on a lost connection; treated as a store outage/);
      // The same process finished it, and is still serving.
      const [completed] = await store.events(run.id, "completed");
      expect(completed?.payload).toMatchObject({ result: { structuredContent: { pid: worker.pid } } });
      expect(worker.exitCode).toBeNull();
    } finally {
      worker.kill("SIGTERM");
      await waitForExit(worker);
    }
  });
});
