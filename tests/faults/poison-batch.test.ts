import { createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { STEP_LOG_DDL } from "./step-log";
import { faultPoison, printCounts, size } from "./support";

/**
 * Review 3, E1 under kill -9: workers with 16 slots run batches of 16 runs whose steps end together,
 * one run in each batch poisoned — a value the engine must refuse ("a\u0000b") or one a trigger makes
 * the store refuse (the class of value that slips past an encoder) — while workers are killed. Only
 * the guilty runs fail, each with a cause naming its step; no other run fails, loses a lease it was
 * not killed with, or runs a committed step again; no guilty run is re-run to exhaustion.
 */
const TENANTS = ["00000000-0000-4000-8000-00000000fb01", "00000000-0000-4000-8000-00000000fb02"];
const LEASE_MS = 1_500;
const POLL_MS = 200;
const BATCH = 16;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await sql.unsafe(STEP_LOG_DDL);
  for (const [i, id] of TENANTS.entries())
    await sql`INSERT INTO tenants (id, slug, name) VALUES (${id}, ${`poison-${i}`}, 'Poison')`;
  // The store refuses a checkpoint carrying the marker as it refuses "\u0000" in jsonb (SQLSTATE 22P05).
  await sql.unsafe(`
    CREATE FUNCTION refuse_marked_step() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.output::text LIKE '%store-refuses%' THEN
        RAISE EXCEPTION 'unsupported Unicode escape sequence (test trigger)' USING ERRCODE = '22P05';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_marked_step BEFORE INSERT ON run_steps FOR EACH ROW EXECUTE FUNCTION refuse_marked_step();`);
});
afterAll(async () => {
  await db.drop();
});

const env = () => ({
  DATABASE_URL: db.url,
  RUNIFOLD_LEASE_MS: String(LEASE_MS),
  RUNIFOLD_POLL_MS: String(POLL_MS),
  RUNIFOLD_WORKER_CONCURRENCY: String(BATCH),
  RUNIFOLD_LOG_LEVEL: "error",
});
const spawnWorker = () => spawnTs("tests/faults/fault-worker-process.ts", env());

describe("a poison value inside a 16-run batch under kill -9", () => {
  it("fails only the guilty runs, each once with its step named, and re-runs nothing", { timeout: 240_000 }, async () => {
    const batches = size(6, 30);
    const killWindowMs = size(6_000, 25_000);
    const workers = [spawnWorker(), spawnWorker()];
    const kills: { pid: number; at: number }[] = [];
    const guilty = new Map<string, "nul" | "store-refuses">();
    const innocent: string[] = [];
    try {
      // A batch of 16 arrives at once (one worker's slots), spread over the kill window; the guilty
      // run's tenant alternates, so its batch mates are of both tenants.
      const started = Date.now();
      const producer = (async () => {
        for (let b = 0; b < batches; b++) {
          const due = started + (b * killWindowMs) / batches;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
          const poison = b % 2 === 0 ? "nul" : "store-refuses";
          for (let i = 0; i < BATCH; i++) {
            const isGuilty = i === b % BATCH;
            const run = await createRun(sql, {
              tenantId: TENANTS[(i + b) % 2] as string,
              workflowName: faultPoison.name,
              workflowVersion: faultPoison.version,
              input: { poison: isGuilty ? poison : "none", ms: 150 },
              definition: faultPoison,
            });
            if (isGuilty) guilty.set(run.id, poison);
            else innocent.push(run.id);
          }
        }
      })();
      const killUntil = started + killWindowMs;
      while (Date.now() < killUntil || kills.length < 2) {
        await new Promise((r) => setTimeout(r, 700 + Math.random() * 800));
        const index = Math.floor(Math.random() * workers.length);
        const victim = workers[index];
        if (!victim?.pid) continue;
        victim.kill("SIGKILL");
        kills.push({ pid: victim.pid, at: Date.now() });
        await waitForExit(victim);
        const replacement = spawnWorker();
        workers[index] = replacement;
        await waitFor(
          async () => (await sql`SELECT 1 FROM worker_registrations WHERE pid = ${String(replacement.pid)}`).length,
          (rows) => rows > 0,
          { describe: `replacement worker ${replacement.pid} to register`, timeoutMs: 30_000 },
        );
      }
      await producer;
      const total = batches * BATCH;
      await waitFor(
        async () =>
          Number((await sql`SELECT count(*) AS n FROM runs WHERE status IN ('completed', 'failed', 'cancelled')`)[0]?.n),
        (n) => n === total,
        { describe: `all ${total} runs to be terminal`, timeoutMs: 120_000, everyMs: 200 },
      );

      const rows = await sql<{ id: string; status: string; failure: Record<string, unknown> | null }[]>`
        SELECT id, status, failure FROM runs`;
      const byId = new Map(rows.map((row) => [row.id, row]));
      const innocentFailed = innocent.filter((id) => byId.get(id)?.status !== "completed").length;
      const guiltyWrong = [...guilty.entries()].filter(([id]) => {
        const row = byId.get(id);
        return !(row?.status === "failed" && row.failure?.code === "not_serialisable" && row.failure?.step === "b");
      }).length;
      // A claim of a run by anyone after its first is a re-run unless the previous holder was killed.
      const killedWorker = (worker: string) => kills.some((k) => worker.includes(`-${k.pid}-`));
      const leases = await sql<{ run_id: string; worker: string }[]>`
        SELECT run_id, payload->>'worker' AS worker FROM run_events WHERE type = 'leased' ORDER BY id`;
      const perRun = new Map<string, string[]>();
      for (const lease of leases) perRun.set(lease.run_id, [...(perRun.get(lease.run_id) ?? []), lease.worker]);
      let rerunAfterPoison = 0;
      for (const holders of perRun.values()) {
        for (let i = 1; i < holders.length; i++) if (!killedWorker(holders[i - 1] as string)) rerunAfterPoison++;
      }
      const reexecuted = Number(
        (
          await sql`SELECT count(*)::int AS n FROM step_log l JOIN run_steps s ON s.run_id = l.run_id AND s.key = l.key WHERE l.at > s.completed_at`
        )[0]?.n,
      );
      // The guilty step runs again only when its worker died before the failure was stored.
      let guiltyExtraExecutions = 0;
      for (const id of guilty.keys()) {
        const [executed] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM step_log WHERE run_id = ${id} AND key = 'b'`;
        const killedHolders = (perRun.get(id) ?? []).filter(killedWorker).length;
        guiltyExtraExecutions += Math.max(0, (executed?.n ?? 0) - 1 - killedHolders);
      }
      const exhausted = rows.filter((row) => row.failure?.code === "attempts_exhausted").length;
      printCounts("poison in a 16-run batch, kill -9", {
        runs: total,
        guilty: guilty.size,
        kills: kills.length,
        innocentFailed,
        guiltyWrong,
        rerunAfterPoison,
        reexecuted,
        guiltyExtraExecutions,
        exhausted,
      });
      expect(kills.length).toBeGreaterThanOrEqual(2);
      expect(innocentFailed).toBe(0);
      expect(guiltyWrong).toBe(0);
      expect(rerunAfterPoison).toBe(0);
      expect(reexecuted).toBe(0);
      expect(guiltyExtraExecutions).toBe(0);
      expect(exhausted).toBe(0);
    } finally {
      for (const w of workers) w.kill("SIGKILL");
      await Promise.all(workers.map((w) => waitForExit(w).catch(() => {})));
    }
  });
});
