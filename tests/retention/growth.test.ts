import { createRegistry, createWorker, defineWorkflow, silentLogger } from "@runifold/sdk";
import { pruneIdempotencyKeys } from "@runifold/sdk/testing";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { purgeRetentionHistory } from "../../lib/retention";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";

/**
 * Every table that grows has a retention rule (review 3, E10): idempotency keys were pruned at 500
 * a sweep (50 a second per worker: a store creating runs with keys faster kept them forever), worker
 * registrations and tombstones were kept forever, and so was the cleaner's log of its own passes.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  const [tenant] = await sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('growth', 'Growth') RETURNING id`;
  tenantId = tenant?.id as string;
});
afterAll(async () => {
  await db.drop();
});

describe("growth", () => {
  it("prunes every expired idempotency key in one sweep, not 500 of them", async () => {
    await sql`
      INSERT INTO run_idempotency_keys (tenant_id, scope, key, run_id, expires_at)
      SELECT ${tenantId}, 'workflow:x@1', 'k' || g, gen_random_uuid(), now() - interval '1 minute'
      FROM generate_series(1, 4500) g`;
    await sql`
      INSERT INTO run_idempotency_keys (tenant_id, scope, key, run_id, expires_at)
      VALUES (${tenantId}, 'workflow:x@1', 'live', gen_random_uuid(), now() + interval '1 day')`;
    expect(await pruneIdempotencyKeys(sql)).toBe(4500);
    const left = await sql<{ key: string }[]>`SELECT key FROM run_idempotency_keys`;
    expect(left.map((row) => row.key)).toEqual(["live"]);
  });

  it("forgets a worker registration a week after its last heartbeat", async () => {
    await sql`
      INSERT INTO worker_registrations (id, hostname, pid, workflows, concurrency, started_at, heartbeat_at, stopped_at) VALUES
        ('gone-stopped', 'h', '1', '{}', '4', now() - interval '9 days', now() - interval '8 days', now() - interval '8 days'),
        ('gone-crashed', 'h', '2', '{}', '4', now() - interval '9 days', now() - interval '8 days', NULL),
        ('stopped-yesterday', 'h', '3', '{}', '4', now() - interval '2 days', now() - interval '1 day', now() - interval '1 day')`;
    const flow = defineWorkflow({ name: "growth", version: 1, input: z.object({}), run: async () => ({ content: [] }) });
    const worker = createWorker({ sql, registry: createRegistry([flow]), logger: silentLogger, pollMs: 100 });
    await worker.start();
    try {
      // The worker's sweep (its first pass runs at start).
      await waitFor(
        async () => (await sql<{ id: string }[]>`SELECT id FROM worker_registrations ORDER BY id`).map((row) => row.id),
        (ids) => !ids.includes("gone-stopped") && !ids.includes("gone-crashed"),
        { describe: "registrations a week old to be removed" },
      );
      const ids = (await sql<{ id: string }[]>`SELECT id FROM worker_registrations ORDER BY id`).map((row) => row.id);
      expect(ids).toEqual([worker.id, "stopped-yesterday"].sort());
    } finally {
      await worker.stop(500);
    }
  });

  it("purges tombstones past their retention, never one younger than 30 days, and the cleaner's old passes", async () => {
    const tombstone = (id: string, purgedAgo: string) => sql`
      INSERT INTO tombstones (run_id, tenant_id, workflow_key, final_status, created_at, finished_at, purged_at, purge_epoch)
      VALUES (${id}, ${tenantId}, 'x@1', 'completed', now() - ${purgedAgo}::interval - interval '1 day',
              now() - ${purgedAgo}::interval, now() - ${purgedAgo}::interval, 1)`;
    await tombstone("00000000-0000-4000-8000-000000000400", "400 days");
    await tombstone("00000000-0000-4000-8000-000000000040", "40 days");
    await tombstone("00000000-0000-4000-8000-000000000010", "10 days");
    await sql`
      INSERT INTO retention_runs (epoch, holder, status, started_at, finished_at) VALUES
        (1, 'old', 'completed', now() - interval '100 days', now() - interval '100 days'),
        (2, 'recent', 'completed', now() - interval '1 day', now() - interval '1 day')`;
    const left = async () =>
      (await sql<{ run_id: string }[]>`SELECT run_id FROM tombstones ORDER BY run_id`).map((row) => row.run_id.slice(-3));

    expect(await purgeRetentionHistory(sql, { tombstoneRetentionDays: 365 })).toMatchObject({ tombstones: 1, passes: 1 });
    expect(await left()).toEqual(["010", "040"]);
    expect((await sql`SELECT holder FROM retention_runs`).map((row) => row.holder)).toEqual(["recent"]);
    // Asked for less than the floor, the store still keeps every tombstone younger than 30 days.
    expect(await purgeRetentionHistory(sql, { tombstoneRetentionDays: 1 })).toMatchObject({ tombstones: 1 });
    expect(await left()).toEqual(["010"]);
    // Nor can any session delete one by hand, with or without the purge flag.
    await expect(
      sql.begin(async (tx) => {
        await tx`SELECT set_config('runifold.purge', 'tombstones', true)`;
        await tx`DELETE FROM tombstones`;
      }),
    ).rejects.toThrow(/tombstones are immutable/);
    expect(await left()).toEqual(["010"]);
  });
});
