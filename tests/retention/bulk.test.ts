import { createRegistry, createRun, createWorker, defineWorkflow, silentLogger } from "@runifold/sdk";
import { claimRuns, finishRun } from "@runifold/sdk/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runRetention } from "../../lib/retention";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";
import { seedRuns } from "./seed-runs";

/**
 * Acceptance: 100k terminal runs purged in batches while a worker keeps completing new runs. No
 * active run is touched, every new run completes, one tombstone per purged run, and no claim
 * stalls behind the cleaner — a fact about locks (the claiming session is never found waiting on
 * the cleaner's session), since a wall-time bound measures the machine's load as much as the code.
 * claimRuns is timed as well, and the figures are printed.
 */
const TOTAL = 100_000;
const ACTIVE = 1_000;
const HOUR = 3_600_000;

const tick = defineWorkflow({
  name: "tick",
  version: 1,
  input: z.object({ n: z.number() }),
  async run(ctx, input) {
    const a = await ctx.step("a", async () => input.n + 1);
    const b = await ctx.step("b", async () => a * 2);
    return { content: [{ type: "text", text: String(b) }] };
  },
});

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  // Its own concurrency cap (max_concurrent_runs): the 200 dormant runs seeded as leased below count
  // against the default one (a share of the worker's 8 slots), and the worker would claim nothing.
  tenantId = (
    await sql`INSERT INTO tenants (slug, name, retention_ms, max_concurrent_runs) VALUES ('bulk', 'Bulk', ${HOUR}, 100000) RETURNING id`
  )[0]?.id as string;
  const started = performance.now();
  // Bulk load only: commit without waiting for the WAL flush (scoped to these transactions).
  for (let done = 0; done < TOTAL; done += 25_000) {
    await sql.begin(async (tx) => {
      await tx.unsafe("SET LOCAL synchronous_commit = off");
      await seedRuns(tx, { tenantId, count: 25_000, finishedAgoMs: 2 * HOUR, lean: true });
    });
  }
  // Old runs that are still active, some even carrying a finished_at: the cleaner must not see them.
  await seedRuns(sql, {
    tenantId,
    count: ACTIVE,
    finishedAgoMs: 30 * 24 * HOUR,
    statuses: ["queued", "leased", "sleeping", "waiting_signal", "waiting_input"],
    workflowKey: "dormant@1",
    setFinishedAt: true,
  });
  await sql`ANALYZE`;
  console.log(`[bulk] seeded ${TOTAL} terminal runs in ${Math.round(performance.now() - started)} ms`);
}, 120_000);
afterAll(async () => {
  await db?.drop();
});

/** Times claimRuns for a probe run, over and over, until stopped; returns every duration in ms. */
function claimProbe(url: string) {
  const probeSql = postgres(url, { max: 2, onnotice: () => {}, connection: { application_name: "claim-probe" } });
  const durations: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await createRun(probeSql, { tenantId, workflowName: "probe", workflowVersion: 1, input: {} });
      const t0 = performance.now();
      const [claimed] = await claimRuns(probeSql, { workerId: "probe", workflowKeys: ["probe@1"], limit: 1, leaseMs: 5_000 });
      durations.push(performance.now() - t0);
      if (claimed)
        await finishRun(
          probeSql,
          { runId: claimed.id, workerId: "probe", attempt: claimed.attempt, leaseMs: 5_000 },
          { status: "completed", result: { content: [] } },
        );
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    durations,
    async stop() {
      stopped = true;
      await loop;
      await probeSql.end();
    },
  };
}

/**
 * Samples, until stopped, whether a claim-probe session waits on a lock held by a bulk-cleaner
 * session (pg_blocking_pids); returns every such sighting.
 */
function blockingMonitor(url: string) {
  const monitorSql = postgres(url, { max: 1, onnotice: () => {} });
  const sightings: Record<string, unknown>[] = [];
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const rows = await monitorSql`
        SELECT p.pid, p.wait_event_type, p.wait_event, left(p.query, 120) AS query
        FROM pg_stat_activity p
        WHERE p.application_name = 'claim-probe'
          AND EXISTS (SELECT 1 FROM pg_stat_activity c
                      WHERE c.application_name = 'bulk-cleaner' AND c.pid = ANY (pg_blocking_pids(p.pid)))`;
      samples += 1;
      sightings.push(...rows);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    sightings,
    samples: () => samples,
    async stop() {
      stopped = true;
      await loop;
      await monitorSql.end();
    },
  };
}

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  return { n: xs.length, p50: at(0.5), p99: at(0.99), max: at(1) };
};

describe("bulk retention", () => {
  it(`purges ${TOTAL} terminal runs in batches while a worker completes new runs, without stalling claims`, async () => {
    const dormantBefore = await sql`SELECT id, status FROM runs WHERE workflow_key = 'dormant@1' ORDER BY id`;
    expect(dormantBefore).toHaveLength(ACTIVE);

    // Baseline claim latency with the worker busy but no cleaner.
    const workerSql = postgres(db.url, { max: 10, onnotice: () => {} });
    const worker = createWorker({
      sql: workerSql,
      registry: createRegistry([tick]),
      logger: silentLogger,
      concurrency: 8,
      pollMs: 100,
    });
    await worker.start();
    const created: string[] = [];
    let producing = true;
    const producer = (async () => {
      for (let n = 0; producing; n++) {
        created.push(
          (await createRun(sql, { tenantId, workflowName: "tick", workflowVersion: 1, input: { n }, definition: tick })).id,
        );
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const baseline = claimProbe(db.url);
    await waitFor(
      () => baseline.durations.length,
      (n) => n >= 50,
      { describe: "50 baseline claims" },
    );
    await baseline.stop();

    const during = claimProbe(db.url);
    const monitor = blockingMonitor(db.url);
    const cleanerSql = postgres(db.url, { max: 2, onnotice: () => {}, connection: { application_name: "bulk-cleaner" } });
    const batches: number[] = [];
    const report = await runRetention(cleanerSql, {
      holder: "bulk-test",
      batchSize: 5_000,
      hooks: { afterBatch: ({ ms }) => void batches.push(ms) },
    });
    await monitor.stop();
    await during.stop();
    producing = false;
    await producer;
    await waitFor(
      async () =>
        (await sql`SELECT count(*)::int AS n FROM runs WHERE id = ANY(${created}::uuid[]) AND status = 'completed'`)[0]?.n,
      (completed) => completed === created.length,
      { describe: `all ${created.length} new runs to complete`, timeoutMs: 60_000, everyMs: 200 },
    );
    await worker.stop(1_000);
    await workerSql.end();
    await cleanerSql.end();

    const claimBase = stats(baseline.durations);
    const claimDuring = stats(during.durations);
    const batchStats = stats(batches);
    console.log(
      `[bulk] purge: ${report.status === "completed" ? `${report.purged} runs, ${report.events} events, ${report.batches} batches in ${report.durationMs} ms` : JSON.stringify(report)}`,
    );
    console.log(`[bulk] batch ms: ${JSON.stringify(batchStats)}`);
    console.log(
      `[bulk] claimRuns ms without cleaner: ${JSON.stringify(claimBase)}; during purge: ${JSON.stringify(claimDuring)}`,
    );
    console.log(`[bulk] new runs completed during the purge: ${created.length}`);
    console.log(
      `[bulk] lock samples during the purge: ${monitor.samples()}, claims found blocked by the cleaner: ${monitor.sightings.length}`,
    );

    expect(report).toMatchObject({ status: "completed", purged: TOTAL, events: 2 * TOTAL, batches: TOTAL / 5_000 });
    const left = await sql`SELECT
        (SELECT count(*)::int FROM runs WHERE workflow_key = 'bulk@1') AS runs,
        (SELECT count(*)::int FROM run_steps s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.run_id)) AS orphan_steps,
        (SELECT count(*)::int FROM run_events e WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = e.run_id)) AS orphan_events,
        (SELECT count(*)::int FROM tombstones WHERE workflow_key = 'bulk@1') AS tombstones,
        (SELECT count(DISTINCT run_id)::int FROM tombstones) AS distinct_tombstones,
        (SELECT count(*)::int FROM tombstones WHERE workflow_key <> 'bulk@1') AS other_tombstones`;
    expect(left[0]).toEqual({
      runs: 0,
      orphan_steps: 0,
      orphan_events: 0,
      tombstones: TOTAL,
      distinct_tombstones: TOTAL,
      other_tombstones: 0,
    });
    expect(await sql`SELECT id, status FROM runs WHERE workflow_key = 'dormant@1' ORDER BY id`).toEqual(dormantBefore);
    expect(created.length).toBeGreaterThan(10);
    expect(during.durations.length).toBeGreaterThan(10);
    expect(monitor.samples()).toBeGreaterThan(10);
    expect(monitor.sightings).toEqual([]);
  }, 120_000);
});
