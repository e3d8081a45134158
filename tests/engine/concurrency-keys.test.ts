import { cancelRunForTenant, describeDefinition, publishDefinitions } from "@runifold/sdk";
import { admitConcurrencyWaiters, claimRuns } from "@runifold/sdk/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { concurrencyRegistry, deploy, pair, routine, urgent } from "../fixtures/concurrency-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { engineStore, TENANT } from "./support/harness";

/**
 * Concurrency keys and priority (issue 32, migration 0043): at most `limit` runs of one key under way
 * across every worker, a full key's runs set aside so they never block other keys, every way a holder
 * ends frees its slot, and priority orders a tenant's own runs without taking other tenants' share.
 */
const store = engineStore();

beforeAll(async () => {
  // The store stamps each new run from the published definition: publish before creating runs.
  await publishDefinitions(store.sql, concurrencyRegistry.all().map(describeDefinition), "concurrency-test");
});

type Interval = { id: string; key: string; started: Date; ended: Date | null };

/** Each run's first lease and its end, from the store. */
async function intervals(ids: string[]): Promise<Interval[]> {
  return store.sql<Interval[]>`
    SELECT r.id, r.concurrency_key AS key, min(e.at) AS started, r.finished_at AS ended
    FROM runs r JOIN run_events e ON e.run_id = r.id AND e.type = 'leased'
    WHERE r.id = ANY(${ids}) GROUP BY r.id`;
}

/** The most runs under way at one instant, per key (a run is under way from its first lease to its end). */
function maxOverlap(rows: Interval[], keyOf: (row: Interval) => string = (row) => row.key): Map<string, number> {
  const most = new Map<string, number>();
  for (const a of rows) {
    const at = a.started.getTime();
    const under = rows.filter(
      (b) => keyOf(b) === keyOf(a) && b.started.getTime() <= at && (b.ended === null || b.ended.getTime() > at),
    ).length;
    most.set(keyOf(a), Math.max(most.get(keyOf(a)) ?? 0, under));
  }
  return most;
}

/** Samples the leased runs per key every 20 ms until stopped: the most seen at once, per key. */
function sampleLeased() {
  const most = new Map<string, number>();
  let on = true;
  const loop = (async () => {
    while (on) {
      const rows = await store.sql<{ key: string; n: number }[]>`
        SELECT concurrency_key AS key, count(*)::int AS n FROM runs
        WHERE status = 'leased' AND concurrency_key IS NOT NULL GROUP BY 1`;
      for (const row of rows) most.set(row.key, Math.max(most.get(row.key) ?? 0, row.n));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      on = false;
      await loop;
      return most;
    },
  };
}

async function allEnded(ids: string[], timeoutMs = 60_000) {
  await waitFor(
    () => store.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM runs WHERE id = ANY(${ids}) AND finished_at IS NOT NULL`,
    (rows) => rows[0]?.n === ids.length,
    { describe: `${ids.length} runs to end`, timeoutMs },
  );
}

describe("concurrency keys", () => {
  it("never leases more than the limit of one key across several workers, while other keys run side by side", async () => {
    for (let n = 0; n < 3; n++) await store.startWorker([deploy, pair], { pollMs: 20 });
    const sampler = sampleLeased();
    const ids: string[] = [];
    for (const service of ["api", "web", "db"])
      for (let n = 0; n < 4; n++) ids.push((await store.create(deploy, { service, ms: 150 })).id);
    for (let n = 0; n < 6; n++) ids.push((await store.create(pair, { ms: 150 })).id);
    await allEnded(ids);
    const leased = await sampler.stop();
    const rows = await intervals(ids);
    expect(rows.map((row) => row.key).sort()).toEqual([
      ...Array(4).fill("api"),
      ...Array(4).fill("db"),
      ...Array(6).fill("pair"),
      ...Array(4).fill("web"),
    ]);
    const overlap = maxOverlap(rows);
    expect(Object.fromEntries(overlap)).toEqual({ api: 1, web: 1, db: 1, pair: 2 });
    expect(Math.max(...leased.values())).toBeLessThanOrEqual(2);
    expect([leased.get("api") ?? 0, leased.get("web") ?? 0, leased.get("db") ?? 0].every((n) => n <= 1)).toBe(true);
    // The deploys of different services did run at the same time: the limit is per key.
    expect(
      maxOverlap(
        rows.filter((row) => row.key !== "pair"),
        () => "deploys",
      ).get("deploys"),
    ).toBeGreaterThan(1);
    const statuses = await store.sql`SELECT DISTINCT status FROM runs WHERE id = ANY(${ids})`;
    expect(statuses.map((row) => row.status)).toEqual(["completed"]);
  });

  it("sets a full key's runs aside, so they neither fill the claim window nor hold up another key's run", async () => {
    const slow: string[] = [];
    for (let n = 0; n < 8; n++) slow.push((await store.create(deploy, { service: "slow", ms: 800 })).id);
    const aside = await store.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM runs WHERE id = ANY(${slow}) AND status = 'queued' AND claimable_at IS NULL
        AND NOT concurrency_held AND wait_detail->'concurrency'->>'key' = 'slow'`;
    expect(aside[0]?.n).toBe(7);
    await store.startWorker([deploy, routine], { pollMs: 20 });
    const fast = await store.create(deploy, { service: "fast", ms: 10 });
    const other = await store.create(routine, { ms: 10 });
    await store.waitForStatus(fast.id, "completed", 5_000);
    await store.waitForStatus(other.id, "completed", 5_000);
    const slowDone = await store.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM runs WHERE id = ANY(${slow}) AND status = 'completed'`;
    expect(slowDone[0]?.n).toBeLessThanOrEqual(2);
    await allEnded(slow);
    expect(maxOverlap(await intervals(slow)).get("slow")).toBe(1);
  });

  it("stamps runs their creator knows nothing of: created without the definition, as the web creates a route's run", async () => {
    const bare = (service: string) => store.create(deploy, { service, ms: 10 }, { definition: undefined, origin: "modern" });
    const first = await bare("web-created");
    const second = await bare("web-created");
    const rows = await store.sql`
      SELECT id, concurrency_key, concurrency_limit, concurrency_held, claimable_at IS NOT NULL AS claimable, status_message
      FROM runs WHERE id IN (${first.id}, ${second.id})`;
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(first.id)).toMatchObject({
      concurrency_key: "web-created",
      concurrency_limit: 1,
      concurrency_held: true,
      claimable: true,
    });
    expect(byId.get(second.id)).toMatchObject({
      concurrency_key: "web-created",
      concurrency_held: false,
      claimable: false,
      status_message: "Waiting for a free slot of concurrency key 'web-created' (limit 1)",
    });
    // Another tenant's run of the same key has a slot of its own.
    const [other] = await store.sql<{ id: string }[]>`
      INSERT INTO tenants (slug, name) VALUES ('concurrency-other', 'Other') RETURNING id`;
    const theirs = await store.create(deploy, { service: "web-created", ms: 10 }, { tenantId: other?.id });
    expect((await store.sql`SELECT concurrency_held FROM runs WHERE id = ${theirs.id}`)[0]?.concurrency_held).toBe(true);
    await store.startWorker([deploy], { pollMs: 20 });
    await allEnded([first.id, second.id, theirs.id]);
  });

  it("frees the slot however its holder ends: cancelled, failed, timed out", async () => {
    // Cancelled by an operator, no worker running: the waiter is admitted in the cancel's transaction.
    const holder = await store.create(deploy, { service: "cancel", ms: 10 });
    const waiter = await store.create(deploy, { service: "cancel", ms: 10 });
    const before = await store.sql`SELECT claimable_at, concurrency_held FROM runs WHERE id = ${waiter.id}`;
    expect(before[0]).toMatchObject({ claimable_at: null, concurrency_held: false });
    await cancelRunForTenant(store.sql, { runId: holder.id, tenantId: TENANT });
    const after = await store.sql`SELECT claimable_at, concurrency_held, wait_detail FROM runs WHERE id = ${waiter.id}`;
    expect(after[0]?.concurrency_held).toBe(true);
    expect(after[0]?.claimable_at).not.toBeNull();
    expect(after[0]?.wait_detail).toBeNull();
    expect(await store.events(waiter.id, "concurrency_admitted")).toEqual([{ payload: { key: "cancel" } }]);

    await store.startWorker([deploy], { pollMs: 20 });
    await store.waitForStatus(waiter.id, "completed");
    // Failed (a non-retryable step error), then timed out (the run's own deadline): each next run starts.
    const failing = await store.create(deploy, { service: "ends", ms: 10, fail: true });
    const timingOut = await store.create(deploy, { service: "ends", ms: 60_000 }, { timeoutMs: 500 });
    const last = await store.create(deploy, { service: "ends", ms: 10 });
    expect((await store.waitForStatus(failing.id, "failed")).status).toBe("failed");
    const timedOut = await store.waitForStatus(timingOut.id, "failed", 30_000);
    expect(timedOut.failure?.code).toBe("run_timeout");
    await store.waitForStatus(last.id, "completed", 30_000);
    expect(maxOverlap(await intervals([failing.id, timingOut.id, last.id])).get("ends")).toBe(1);
  });

  it("admits a waiter its holder's end skipped (locked at that instant) with the sweep, once the slot has room", async () => {
    const holder = await store.create(deploy, { service: "skipped", ms: 10 });
    const waiter = await store.create(deploy, { service: "skipped", ms: 10 });
    // Another transaction holds the waiter's row while the holder ends: the end's admission skips it.
    const locker = await store.sql.reserve();
    try {
      await locker`BEGIN`;
      await locker`SELECT id FROM runs WHERE id = ${waiter.id} FOR UPDATE`;
      await cancelRunForTenant(store.sql, { runId: holder.id, tenantId: TENANT });
      await locker`COMMIT`;
    } finally {
      locker.release();
    }
    const stuck = await store.sql`SELECT claimable_at, concurrency_held FROM runs WHERE id = ${waiter.id}`;
    expect(stuck[0]).toMatchObject({ claimable_at: null, concurrency_held: false });
    // A full slot's waiters are left alone: a second key whose holder is live keeps its waiter aside.
    const busy = await store.create(deploy, { service: "busy", ms: 10 });
    const queued = await store.create(deploy, { service: "busy", ms: 10 });

    expect(await admitConcurrencyWaiters(store.sql)).toBe(1);
    const admitted = await store.sql`SELECT claimable_at, concurrency_held FROM runs WHERE id = ${waiter.id}`;
    expect(admitted[0]?.concurrency_held).toBe(true);
    expect(admitted[0]?.claimable_at).not.toBeNull();
    expect(await store.events(waiter.id, "concurrency_admitted")).toEqual([{ payload: { key: "skipped" } }]);
    const still = await store.sql`SELECT concurrency_held FROM runs WHERE id = ${queued.id}`;
    expect(still[0]?.concurrency_held).toBe(false);
    expect(await admitConcurrencyWaiters(store.sql)).toBe(0);

    await store.startWorker([deploy], { pollMs: 20 });
    await allEnded([waiter.id, busy.id, queued.id]);
  });

  it("keeps the slot with a SIGKILLed worker's run until it ends, then lets the next run of its key start", async () => {
    const env = { DATABASE_URL: store.url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "100" };
    const victim = spawnTs("tests/helpers/concurrency-worker-process.ts", env);
    let survivor: ReturnType<typeof spawnTs> | undefined;
    const sampler = sampleLeased();
    try {
      const first = await store.create(deploy, { service: "killed", ms: 3_000 });
      const second = await store.create(deploy, { service: "killed", ms: 10 });
      await store.waitForStatus(first.id, "leased", 30_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // mid-step
      victim.kill("SIGKILL");
      await waitForExit(victim);
      survivor = spawnTs("tests/helpers/concurrency-worker-process.ts", env);
      await store.waitForStatus(first.id, "completed", 60_000);
      await store.waitForStatus(second.id, "completed", 30_000);
      const leased = await sampler.stop();
      expect(leased.get("killed")).toBe(1);
      const [a, b] = await Promise.all([intervals([first.id]), intervals([second.id])]);
      expect((await store.run(first.id))?.attempt).toBeGreaterThanOrEqual(2); // taken over after the lease expired
      expect(b[0]?.started.getTime()).toBeGreaterThanOrEqual(a[0]?.ended?.getTime() ?? Number.POSITIVE_INFINITY);
    } finally {
      await sampler.stop();
      victim.kill("SIGKILL");
      survivor?.kill("SIGTERM");
      if (survivor) await waitForExit(survivor);
    }
  });
});

describe("priority", () => {
  it("claims a tenant's higher-priority runs first, and leaves the share across tenants as it was", async () => {
    const [other] = await store.sql<{ id: string }[]>`
      INSERT INTO tenants (slug, name) VALUES ('priority-other', 'Other') RETURNING id`;
    if (!other) throw new Error("no tenant");
    const theirs = await store.create(routine, { ms: 1 }, { tenantId: other.id });
    const mine: string[] = [];
    for (let n = 0; n < 5; n++) mine.push((await store.create(routine, { ms: 1 })).id);
    const first = await store.create(urgent, { ms: 1 });
    const second = await store.create(urgent, { ms: 1 });
    const keys = [routine, urgent].map((w) => `${w.name}@${w.version}`);
    const claim = async (limit: number) =>
      (await claimRuns(store.sql, { workerId: "priority-test", workflowKeys: keys, limit, leaseMs: 60_000 })).map((r) => r.id);
    // Three slots: each tenant's first run before anyone's second; this tenant's first is its urgent one.
    const batch = await claim(3);
    expect(new Set(batch)).toEqual(new Set([theirs.id, first.id, second.id]));
    // One slot at a time from here: the tenant's remaining runs, oldest first.
    expect(await claim(1)).toEqual([mine[0]]);
    expect(await claim(1)).toEqual([mine[1]]);
    const stamped = await store.sql`SELECT DISTINCT priority FROM runs WHERE id IN (${first.id}, ${second.id})`;
    expect(stamped.map((row) => row.priority)).toEqual([10]);
  });
});
