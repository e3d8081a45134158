import { createRegistry, createRun, createWorker, defineWorkflow, silentLogger, type Worker } from "@runifold/sdk";
import { claimRuns, promoteDueTimers } from "@runifold/sdk/testing";
import type postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";

/**
 * Per-tenant capacity (review 3, §4 "One tenant flooding"): fair claiming orders who gets a free
 * slot, but once one tenant's long steps filled every slot, another tenant's run waited until one of
 * them ended. A tenant may hold at most its cap of leased runs — by default a share of the fleet's
 * slots (RUNIFOLD_TENANT_SHARE, 0.75), or its own `max_concurrent_runs` — so a slot stays for
 * the others.
 */
let db: { sql: postgres.Sql; url: string; drop(): Promise<void> };
const workers: Worker[] = [];
/** Step bodies of `held` wait until the test lets them go. */
let release: () => void = () => {};
let released = new Promise<void>((resolve) => {
  release = resolve;
});

/** A workflow whose step bodies wait until the test lets them go; one per test, so no test claims another's leftovers. */
function heldWorkflow(name: string) {
  return defineWorkflow({
    name,
    version: 1,
    input: z.object({ n: z.number() }),
    async run(ctx, input) {
      await ctx.step("hold", async () => {
        await released;
        return input.n;
      });
      return { content: [] };
    },
  });
}

async function tenant(slug: string, maxConcurrentRuns: number | null = null): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`
    INSERT INTO tenants (slug, name, max_concurrent_runs) VALUES (${slug}, ${slug}, ${maxConcurrentRuns}) RETURNING id`;
  return row?.id as string;
}

async function queue(tenantId: string, workflowKey: string, count: number): Promise<void> {
  const [name, version] = workflowKey.split("@");
  await db.sql`
    INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
    SELECT gen_random_uuid(), ${tenantId}, ${name as string}, ${Number(version)}, ${workflowKey}, 'queued', '{"n":1}', 'engine', 0,
           now() - interval '1 minute' + g * interval '1 ms'
    FROM generate_series(1, ${count}) g`;
}

const leasedOf = async (tenantId: string) =>
  Number((await db.sql`SELECT count(*) AS n FROM runs WHERE tenant_id = ${tenantId} AND status = 'leased'`)[0]?.n);

beforeAll(async () => {
  db = await freshDatabase();
});
afterEach(async () => {
  release();
  await Promise.all(workers.splice(0).map((w) => w.stop(2_000)));
  released = new Promise<void>((resolve) => {
    release = resolve;
  });
});
afterAll(async () => {
  await db.drop();
});

describe("a tenant's concurrency cap", () => {
  it("stops a claim at the cap, counting the runs the tenant already holds", async () => {
    const a = await tenant("cap-a");
    await queue(a, "cap_claim@1", 20);
    const claim = (limit: number) =>
      claimRuns(db.sql, { workerId: "w", workflowKeys: ["cap_claim@1"], limit, leaseMs: 60_000, tenantLimit: 3 });
    expect(await claim(8)).toHaveLength(3);
    expect(await claim(8)).toHaveLength(0);
    // Without a cap (claimRuns' default) the same claim takes what is free.
    expect(await claimRuns(db.sql, { workerId: "w", workflowKeys: ["cap_claim@1"], limit: 8, leaseMs: 60_000 })).toHaveLength(8);
  });

  it("lets a tenant's own max_concurrent_runs replace the fleet's share, higher or lower", async () => {
    const wide = await tenant("cap-wide", 6);
    const narrow = await tenant("cap-narrow", 1);
    await queue(wide, "cap_own@1", 20);
    await queue(narrow, "cap_own@1", 20);
    const claimed = await claimRuns(db.sql, {
      workerId: "w",
      workflowKeys: ["cap_own@1"],
      limit: 16,
      leaseMs: 60_000,
      tenantLimit: 3,
    });
    expect(claimed.filter((run) => run.tenant_id === wide)).toHaveLength(6);
    expect(claimed.filter((run) => run.tenant_id === narrow)).toHaveLength(1);
  });

  it("applies to timers that came due as well as to queued runs", async () => {
    const a = await tenant("cap-timers");
    await db.sql`
      INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
      SELECT gen_random_uuid(), ${a}, 'cap_timer', 1, 'cap_timer@1', 'sleeping', '{}', 'engine', 1, now() - interval '1 second'
      FROM generate_series(1, 10)`;
    const claim = () =>
      claimRuns(db.sql, { workerId: "w", workflowKeys: ["cap_timer@1"], limit: 8, leaseMs: 60_000, tenantLimit: 2 });
    expect(await claim()).toHaveLength(2);
    // Promoted to the backlog (a herd left due), still capped.
    expect(await promoteDueTimers(db.sql, { workflowKeys: ["cap_timer@1"], afterMs: 0 })).toBe(8);
    expect(await claim()).toHaveLength(0);
    expect(await leasedOf(a)).toBe(2);
  });

  it("keeps a slot for another tenant while one tenant's long steps would fill them all", async () => {
    const held = heldWorkflow("held_flood");
    const flood = await tenant("cap-flood");
    const late = await tenant("cap-late");
    for (let n = 0; n < 12; n++)
      await createRun(db.sql, { tenantId: flood, workflowName: held.name, workflowVersion: 1, input: { n }, definition: held });
    // One worker of 4 slots: the default share (0.75) lets a tenant hold 3 of them.
    const worker = createWorker({
      sql: db.sql,
      registry: createRegistry([held]),
      logger: silentLogger,
      concurrency: 4,
      pollMs: 50,
    });
    workers.push(worker);
    await worker.start();
    await waitFor(
      () => leasedOf(flood),
      (n) => n === 3,
      { describe: "the flooding tenant to hold its share of the slots" },
    );
    const lateRun = await createRun(db.sql, {
      tenantId: late,
      workflowName: held.name,
      workflowVersion: 1,
      input: { n: 99 },
      definition: held,
    });
    // It starts while every one of the flooding tenant's steps is still held.
    await waitFor(
      async () => (await db.sql`SELECT status FROM runs WHERE id = ${lateRun.id}`)[0]?.status,
      (status) => status === "leased",
      { describe: "the other tenant's run to start beside the flood" },
    );
    expect(await leasedOf(flood)).toBe(3);
  });

  it("counts the fleet: the share is of every online worker's slots", async () => {
    const held = heldWorkflow("held_fleet");
    const flood = await tenant("cap-fleet");
    for (let n = 0; n < 12; n++)
      await createRun(db.sql, { tenantId: flood, workflowName: held.name, workflowVersion: 1, input: { n }, definition: held });
    for (let n = 0; n < 2; n++) {
      const worker = createWorker({
        sql: db.sql,
        registry: createRegistry([held]),
        logger: silentLogger,
        concurrency: 4,
        pollMs: 50,
      });
      workers.push(worker);
      await worker.start();
    }
    // Two workers of 4: 8 slots, a share of 6, whichever worker claims.
    await waitFor(
      () => leasedOf(flood),
      (n) => n === 6,
      { describe: "the tenant to hold three quarters of the fleet's 8 slots" },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await leasedOf(flood)).toBe(6);
  });
});
