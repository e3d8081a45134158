import { createHash } from "node:crypto";
import { silentLogger } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { purgeBatch, runRetention, startRetentionTimer } from "../../lib/retention";
import { listRetentionRuns, listTombstones, readRetentionFence, readTaskRecord, readTombstone } from "../../lib/tasks";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";
import { CHILD_TABLES, countRows, seedRuns } from "./seed-runs";

const HOUR = 3_600_000;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantSeq = 0;

/** A tenant keeping terminal runs for `retentionMs` (default one hour). */
async function tenant(retentionMs = HOUR): Promise<string> {
  tenantSeq += 1;
  const rows =
    await sql`INSERT INTO tenants (slug, name, retention_ms) VALUES (${`r-${tenantSeq}`}, 'Retention test', ${retentionMs}) RETURNING id`;
  return rows[0]?.id as string;
}

async function tombstoneCount(ids: string[]): Promise<number> {
  return Number((await sql`SELECT count(*)::int AS n FROM tombstones WHERE run_id = ANY(${ids}::uuid[])`)[0]?.n);
}

/** Seeded terminal runs have two events (created, terminal) and one row in every other table. */
async function expectIntact(ids: string[]) {
  for (const table of CHILD_TABLES)
    expect(await countRows(sql, table, ids), table).toBe(ids.length * (table === "run_events" ? 2 : 1));
  expect(await tombstoneCount(ids)).toBe(0);
}

async function expectPurged(ids: string[]) {
  for (const table of CHILD_TABLES) expect(await countRows(sql, table, ids), table).toBe(0);
  expect(await tombstoneCount(ids)).toBe(ids.length);
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  // Each test starts with nothing eligible, so its counts are its own.
  await runRetention(sql, { holder: "test-reset", batchSize: 5000 });
});

describe("retention cleaner", () => {
  it("dry run counts what is eligible, deletes nothing and takes no epoch", async () => {
    const t = await tenant();
    const old = await seedRuns(sql, { tenantId: t, count: 12, finishedAgoMs: 2 * HOUR });
    const before = await readRetentionFence(sql);
    const report = await runRetention(sql, { holder: "dry", dryRun: true });
    expect(report).toMatchObject({ status: "completed", dryRun: true, purged: 12, batches: 0, epoch: before.epoch });
    await expectIntact(old);
    expect((await readRetentionFence(sql)).epoch).toBe(before.epoch);
    expect((await listRetentionRuns(sql, { limit: 1 }))[0]).toMatchObject({ dryRun: true, status: "completed", purged: 12 });
  });

  it("purges terminal runs past their tenant's retention with all their rows, one tombstone each", async () => {
    const short = await tenant(HOUR);
    const long = await tenant(7 * 24 * HOUR);
    const old = await seedRuns(sql, { tenantId: short, count: 40, finishedAgoMs: 2 * HOUR });
    const young = await seedRuns(sql, { tenantId: short, count: 5, finishedAgoMs: 10 * 60_000 });
    const kept = await seedRuns(sql, { tenantId: long, count: 10, finishedAgoMs: 2 * HOUR });
    const payloads = await sql`SELECT e.run_id, e.payload::text AS text FROM run_events e JOIN runs r ON r.id = e.run_id
                               WHERE e.run_id = ANY(${old}::uuid[]) AND e.type = r.status`;
    await sql`INSERT INTO consumed_request_states (nonce, expires_at) VALUES
              ('expired', now() - interval '1 day'), ('in-grace', now() - interval '1 minute'), ('fresh', now() + interval '1 hour')`;

    const report = await runRetention(sql, { holder: "purger", batchSize: 7 });
    expect(report).toMatchObject({ status: "completed", purged: 40, batches: 6, nonces: 1, events: 80 });
    await expectPurged(old);
    await expectIntact(young);
    await expectIntact(kept);
    const nonces = (await sql`SELECT nonce FROM consumed_request_states ORDER BY nonce`).map((r) => r.nonce);
    expect(nonces).toEqual(["fresh", "in-grace"]);

    // Tombstones carry the run's identity, times and a digest of its final result.
    const fence = await readRetentionFence(sql);
    expect(fence).toMatchObject({ holder: "purger", epoch: report.status === "completed" ? report.epoch : -1 });
    for (const { run_id, text } of payloads) {
      const tomb = await readTombstone(sql, { tenantId: short, runId: run_id });
      expect(tomb).toMatchObject({ runId: run_id, tenantId: short, workflowKey: "bulk@1", purgeEpoch: fence.epoch });
      expect(tomb?.resultDigest).toBe(createHash("sha256").update(text).digest("hex"));
      expect(await readTaskRecord(sql, { tenantId: short, taskId: run_id })).toBeUndefined();
      expect(await readTombstone(sql, { tenantId: long, runId: run_id })).toBeUndefined();
    }
    expect(
      new Set((await sql`SELECT final_status FROM tombstones WHERE run_id = ANY(${old}::uuid[])`).map((r) => r.final_status)),
    ).toEqual(new Set(["completed", "failed", "cancelled"]));

    // Keyset pages: every tombstone exactly once, although a batch shares one purged_at.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listTombstones(sql, { tenantId: short, limit: 15, cursor });
      seen.push(...page.items.map((t) => t.runId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...old].sort());

    expect((await listRetentionRuns(sql, { limit: 1 }))[0]).toMatchObject({
      holder: "purger",
      status: "completed",
      purged: 40,
      batches: 6,
    });
    expect(await runRetention(sql, { holder: "again" })).toMatchObject({ status: "completed", purged: 0 });
  });

  it("never deletes a non-terminal run, however old (even with finished_at set)", async () => {
    const t = await tenant();
    const active = ["queued", "leased", "sleeping", "waiting_signal", "waiting_input"];
    const withFinish = await seedRuns(sql, { tenantId: t, count: 25, finishedAgoMs: 400 * 24 * HOUR, statuses: active });
    const plain = await seedRuns(sql, {
      tenantId: t,
      count: 25,
      finishedAgoMs: 400 * 24 * HOUR,
      statuses: active,
      setFinishedAt: false,
    });
    const terminal = await seedRuns(sql, { tenantId: t, count: 5, finishedAgoMs: 400 * 24 * HOUR });
    expect(await runRetention(sql, { holder: "f", batchSize: 3 })).toMatchObject({ status: "completed", purged: 5 });
    for (const table of ["runs", "run_steps", "run_inputs", "run_signals"]) {
      expect(await countRows(sql, table, [...withFinish, ...plain]), table).toBe(50);
    }
    expect(await countRows(sql, "run_events", [...withFinish, ...plain])).toBe(50); // their `created` events
    await expectPurged(terminal);
  });

  it("two cleaners started at once: one purges, the other steps aside", async () => {
    const t = await tenant();
    const old = await seedRuns(sql, { tenantId: t, count: 300, finishedAgoMs: 2 * HOUR });
    // Whoever takes the lock holds it until the other has finished its attempt, so the attempts
    // overlap by construction, however the two are scheduled. The hold is bounded: if both took the
    // lock (the bug this test is for), neither waits forever and the assertions below say so.
    const finished = { one: gate(), two: gate() };
    const holdUntil = (other: Promise<void>) => ({
      afterLock: async () => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([other, new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]);
        clearTimeout(timer);
      },
    });
    const reports = await Promise.all([
      runRetention(sql, { holder: "one", batchSize: 50, hooks: holdUntil(finished.two.opened) }).finally(finished.one.open),
      runRetention(sql, { holder: "two", batchSize: 50, hooks: holdUntil(finished.one.opened) }).finally(finished.two.open),
    ]);
    const acted = reports.filter((r) => r.status === "completed");
    expect(acted).toHaveLength(1);
    expect(reports.filter((r) => r.status === "skipped")).toEqual([
      { status: "skipped", reason: "another cleaner holds the lock" },
    ]);
    expect(acted[0]).toMatchObject({ purged: 300, batches: 6 });
    await expectPurged(old);
    const perRun =
      await sql`SELECT count(*)::int AS n FROM tombstones WHERE run_id = ANY(${old}::uuid[]) GROUP BY run_id HAVING count(*) > 1`;
    expect(perRun).toHaveLength(0);
  });

  it("a cleaner paused after taking the lock, resumed after losing it, deletes nothing", async () => {
    const t = await tenant();
    const old = await seedRuns(sql, { tenantId: t, count: 30, finishedAgoMs: 2 * HOUR });
    const firstLocked = gate();
    const resumeFirst = gate();
    let firstPid = 0;
    const first = runRetention(sql, {
      holder: "paused",
      batchSize: 10,
      hooks: {
        afterLock: async ({ backendPid }) => {
          firstPid = backendPid;
          firstLocked.open();
          await resumeFirst.opened;
        },
      },
    });
    await firstLocked.opened;
    expect(await runRetention(sql, { holder: "blocked" })).toMatchObject({ status: "skipped" });

    // A partition: the paused cleaner's session dies, Postgres drops its lock.
    await sql`SELECT pg_terminate_backend(${firstPid})`;
    await waitFor(
      async () => Number((await sql`SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ${firstPid}`)[0]?.n),
      (sessions) => sessions === 0,
      { describe: `the paused cleaner's session ${firstPid} to be gone` },
    );

    // A new cleaner takes the lock and a newer epoch, and holds still too.
    const secondLocked = gate();
    const resumeSecond = gate();
    const second = runRetention(sql, {
      holder: "successor",
      batchSize: 10,
      hooks: {
        afterLock: async () => {
          secondLocked.open();
          await resumeSecond.opened;
        },
      },
    });
    await secondLocked.opened;

    // The stale cleaner wakes with work in front of it and deletes nothing.
    resumeFirst.open();
    const stale = await first;
    expect(stale).toMatchObject({ status: "fenced", purged: 0, batches: 0 });
    await expectIntact(old);

    resumeSecond.open();
    const fresh = await second;
    expect(fresh).toMatchObject({ status: "completed", purged: 30 });
    await expectPurged(old);
    const epochs = await sql`SELECT DISTINCT purge_epoch::float8 AS e FROM tombstones WHERE run_id = ANY(${old}::uuid[])`;
    expect(epochs.map((r) => r.e)).toEqual([fresh.status === "completed" ? fresh.epoch : -1]);
    const runs = await listRetentionRuns(sql, { limit: 3 });
    expect(runs.find((r) => r.holder === "paused")).toMatchObject({ status: "fenced", purged: 0 });
    expect(runs.find((r) => r.holder === "successor")).toMatchObject({ status: "completed", purged: 30 });
  });

  it("a batch carrying a superseded epoch is refused inside its own transaction", async () => {
    const t = await tenant();
    const old = await seedRuns(sql, { tenantId: t, count: 5, finishedAgoMs: 2 * HOUR });
    const { epoch } = await readRetentionFence(sql);
    expect(await purgeBatch(sql, { epoch: epoch - 1, batchSize: 100 })).toEqual({ fenced: true });
    expect(await purgeBatch(sql, { epoch: epoch + 1, batchSize: 100 })).toEqual({ fenced: true });
    await expectIntact(old);
  });

  it("tombstones cannot be updated, deleted or truncated, even with the purge flag on", async () => {
    const t = await tenant();
    const [id] = await seedRuns(sql, { tenantId: t, count: 1, finishedAgoMs: 2 * HOUR });
    await runRetention(sql, { holder: "e" });
    expect(await tombstoneCount([id as string])).toBe(1);
    await expect(sql`UPDATE tombstones SET final_status = 'completed' WHERE run_id = ${id as string}`).rejects.toThrow(
      /tombstones are immutable/,
    );
    await expect(sql`DELETE FROM tombstones WHERE run_id = ${id as string}`).rejects.toThrow(/tombstones are immutable/);
    await expect(sql`TRUNCATE tombstones`).rejects.toThrow(/tombstones are immutable/);
    await expect(
      sql.begin(async (tx) => {
        await tx`SELECT set_config('runifold.purge', 'on', true)`;
        await tx`DELETE FROM tombstones WHERE run_id = ${id as string}`;
      }),
    ).rejects.toThrow(/tombstones are immutable/);
    expect(await tombstoneCount([id as string])).toBe(1);
  });

  it("history stays append-only outside a purge transaction", async () => {
    const t = await tenant();
    const [id] = await seedRuns(sql, { tenantId: t, count: 1, finishedAgoMs: 0, statuses: ["queued"] });
    await expect(sql`DELETE FROM run_events WHERE run_id = ${id as string}`).rejects.toThrow(/append-only/);
  });

  it("the worker's periodic job purges on its interval and stops between batches", async () => {
    const t = await tenant();
    const old = await seedRuns(sql, { tenantId: t, count: 20, finishedAgoMs: 2 * HOUR });
    const timer = startRetentionTimer({ sql, holder: "worker-x", intervalMs: 100, logger: silentLogger });
    try {
      await waitFor(
        () => tombstoneCount(old),
        (n) => n === old.length,
        { describe: `the timer to tombstone ${old.length} runs` },
      );
    } finally {
      await timer.stop();
    }
    await expectPurged(old);
    expect((await listRetentionRuns(sql, { limit: 10 })).some((r) => r.holder === "worker-x" && r.purged === 20)).toBe(true);
  });

  it("the periodic job runs the composition root's other purges after each pass, one failing purge not stopping the next", async () => {
    const purged: string[] = [];
    const timer = startRetentionTimer({
      sql,
      holder: "worker-y",
      intervalMs: 100,
      logger: silentLogger,
      alsoPurge: [
        {
          name: "broken",
          purge: async () => {
            throw new Error("boom");
          },
        },
        {
          name: "sessions",
          purge: async () => {
            const rows = await sql`SELECT count(*)::int AS n FROM tenants`;
            purged.push("sessions");
            return { rows: rows[0]?.n as number };
          },
        },
      ],
    });
    try {
      await waitFor(
        () => purged.length,
        (n) => n >= 2,
        { describe: "two passes to run the sessions purge" },
      );
    } finally {
      await timer.stop();
    }
  });
});
