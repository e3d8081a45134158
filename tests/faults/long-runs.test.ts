import { createRun, sendSignal } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { STEP_LOG_DDL } from "./step-log";
import { FULL, faultLong, faultSignalFirst, printCounts, size } from "./support";

/**
 * Long-lived runs under worker kills: hundreds of resumptions and buffered signals must end in one
 * completed run, with no resumption counted as a failure and no committed step executed again.
 */
const TENANT = "00000000-0000-4000-8000-00000000fa02";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await sql.unsafe(STEP_LOG_DDL);
  await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'faults-long', 'Faults long')`;
});
afterAll(async () => {
  await db.drop();
});

const spawnWorker = () =>
  spawnTs("tests/faults/fault-worker-process.ts", {
    DATABASE_URL: db.url,
    RUNIFOLD_LEASE_MS: "1500",
    RUNIFOLD_POLL_MS: "200",
    RUNIFOLD_LOG_LEVEL: "error",
  });

/** Committed steps whose body started again after the checkpoint (must be 0). */
async function reexecuted(runId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM step_log l JOIN run_steps s ON s.run_id = l.run_id AND s.key = l.key
    WHERE l.run_id = ${runId} AND l.at > s.completed_at`;
  return row?.n ?? 0;
}

describe("long-lived runs across worker kills", () => {
  it("completes a run of 500 sleeps and 100 signals while workers are killed", { timeout: 240_000 }, async () => {
    const sleeps = size(200, 500);
    const signals = size(40, 100);
    const workers = [spawnWorker(), spawnWorker()];
    let kills = 0;
    try {
      const run = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "fault-long",
        workflowVersion: 1,
        input: { sleeps, signals },
        definition: faultLong,
      });
      // Every signal is sent up front: most arrive long before their wait, buffered across kills.
      for (let i = 0; i < signals; i++) await sendSignal(sql, { runId: run.id, name: "tick", payload: i });
      const status = async () => (await sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ${run.id}`)[0]?.status;
      // The first kill lands mid-run by state, not by time: as soon as the run has checkpointed its
      // first sleeps (a quick-size run can finish within the first timed pause on a fast machine).
      await waitFor(
        async () => (await sql`SELECT count(*)::int AS n FROM run_steps WHERE run_id = ${run.id}`)[0]?.n as number,
        (n) => n >= 3,
        { describe: "the long run to checkpoint its first sleeps", everyMs: 10, timeoutMs: 60_000 },
      );
      let first = true;
      while (!["completed", "failed", "cancelled"].includes((await status()) ?? "")) {
        if (!first) await new Promise((r) => setTimeout(r, 1_000 + Math.random() * 1_000));
        first = false;
        if ((await status()) === "completed") break;
        const index = Math.floor(Math.random() * workers.length);
        workers[index]?.kill("SIGKILL");
        await waitForExit(workers[index] as ReturnType<typeof spawnWorker>);
        kills += 1;
        const replacement = spawnWorker();
        workers[index] = replacement;
        // The next kill waits for the replacement to serve, so one live worker is always there.
        await waitFor(
          () => sql`SELECT 1 FROM worker_registrations WHERE pid = ${String(replacement.pid)}`,
          (rows) => rows.length > 0,
          { describe: "the replacement worker to register", timeoutMs: 30_000 },
        );
      }
      const [final] = await sql<{ status: string; lost_attempts: number; failure: unknown }[]>`
        SELECT status, lost_attempts, failure FROM runs WHERE id = ${run.id}`;
      const [terminal] = await sql<{ payload: { result?: { structuredContent?: { payloads?: number[] } } } }[]>`
        SELECT payload FROM run_events WHERE run_id = ${run.id} AND type = 'completed'`;
      const payloads = terminal?.payload.result?.structuredContent?.payloads ?? [];
      const counts = {
        sleeps,
        signals,
        kills,
        status: final?.status ?? "missing",
        signalsLost: signals - payloads.length,
        signalsOutOfOrder: payloads.filter((p, i) => p !== i).length,
        reexecuted: await reexecuted(run.id),
      };
      printCounts("long run across kills", counts);
      expect(final?.failure ?? null).toBeNull();
      expect(counts.status).toBe("completed");
      expect(counts.signalsLost).toBe(0);
      expect(counts.signalsOutOfOrder).toBe(0);
      expect(counts.reexecuted).toBe(0);
      // At least one kill always lands mid-run (by state); the full size is long enough for several.
      expect(kills).toBeGreaterThanOrEqual(FULL ? 2 : 1);
    } finally {
      for (const w of workers) w.kill("SIGKILL");
      await Promise.all(workers.map((w) => waitForExit(w).catch(() => {})));
    }
  });

  it("delivers a signal sent before the wait to the attempt after a kill", { timeout: 120_000 }, async () => {
    const runs = size(5, 20);
    const ids: string[] = [];
    for (let i = 0; i < runs; i++) {
      const run = await createRun(sql, {
        tenantId: TENANT,
        workflowName: "fault-signal-first",
        workflowVersion: 1,
        input: { ms: 2_000 },
        definition: faultSignalFirst,
      });
      await sendSignal(sql, { runId: run.id, name: "go", payload: `go-${i}` });
      ids.push(run.id);
    }
    const victim = spawnWorker();
    let survivor: ReturnType<typeof spawnWorker> | undefined;
    try {
      await waitFor(
        () =>
          sql<
            { n: number }[]
          >`SELECT count(DISTINCT run_id)::int AS n FROM step_log WHERE key = 'slow' AND pid = ${victim.pid ?? 0}`,
        (rows) => (rows[0]?.n ?? 0) >= 1,
        { describe: "the victim to be inside a slow step", timeoutMs: 30_000 },
      );
      victim.kill("SIGKILL");
      await waitForExit(victim);
      survivor = spawnWorker();
      const done = await waitFor(
        () => sql<{ id: string; status: string }[]>`SELECT id, status FROM runs WHERE id IN ${sql(ids)}`,
        (rows) => rows.every((row) => ["completed", "failed", "cancelled"].includes(row.status)),
        { describe: "every run to end", timeoutMs: 90_000 },
      );
      const delivered = await sql<{ payload: { result?: { structuredContent?: { payload?: string } } } }[]>`
        SELECT payload FROM run_events WHERE type = 'completed' AND run_id IN ${sql(ids)}`;
      const counts = {
        runs,
        notCompleted: done.filter((row) => row.status !== "completed").length,
        signalsLost: delivered.filter((e) => !e.payload.result?.structuredContent?.payload).length + (runs - delivered.length),
        reexecuted: (await Promise.all(ids.map(reexecuted))).reduce((a, b) => a + b, 0),
      };
      printCounts("signal before wait, kill", counts);
      expect(counts).toMatchObject({ notCompleted: 0, signalsLost: 0, reexecuted: 0 });
    } finally {
      victim.kill("SIGKILL");
      survivor?.kill("SIGKILL");
      await Promise.all([victim, survivor].map((w) => (w ? waitForExit(w).catch(() => {}) : undefined)));
    }
  });
});
