import {
  createRegistry,
  createRun,
  createWorker,
  defineWorkflow,
  LEASE_PLAN_SETTINGS,
  silentLogger,
  type Worker,
} from "@runifold/sdk";
import { claimRuns } from "@runifold/sdk/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { keptClaimBuffers } from "../engine/support/kept-claim-plan";
import { parkedTenants } from "../engine/support/parked-tenants";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";
import { printCounts, size } from "./support";

/**
 * Thousands of tenants holding parked runs while one tenant's backlog drains (review 3, E2): every
 * tenant has a run asleep until tomorrow, one waiting for an answer with a timeout, one waiting for a
 * signal and one leased by another live worker. Claims must cost what the due work costs, and stay
 * fair: tenant B's run, created mid-drain, is in the first claim the worker starts after it is
 * committed (at most 2 × concurrency of A's runs leased between the two, as in fair-backlog). The
 * claim's cost is recorded with the lease pool's settings: buffers (load-independent, bounded) and
 * time (printed only).
 */
const CONCURRENCY = 4;
const KEY = "fault-parked@1";
const parked = defineWorkflow({
  name: "fault-parked",
  version: 1,
  input: z.object({ n: z.number() }),
  async run(ctx, input) {
    await ctx.step("work", async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return input.n;
    });
    return { content: [] };
  },
});

let db: Awaited<ReturnType<typeof freshDatabase>>;
let worker: Worker | undefined;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await worker?.stop(500);
  await db.drop();
});

async function tenant(slug: string): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES (${slug}, ${slug}) RETURNING id`;
  return row?.id as string;
}

/** p50 time and the buffers of a claim of 4 on a one-connection lease pool (asynchronous commit, as runifold-worker's). */
async function claimCost(): Promise<{ p50: number; buffers: number }> {
  const pool = postgres(db.url, {
    max: 1,
    onnotice: () => {},
    connection: { ...LEASE_PLAN_SETTINGS, synchronous_commit: "off" },
  });
  try {
    // Real claims of the backlog (the runs they lease are never run: the test ends with them), with a
    // cap high enough that the probe's own leases never stop it.
    const claim = () =>
      claimRuns(pool, { workerId: "probe", workflowKeys: [KEY], limit: 4, leaseMs: 30_000, tenantLimit: 1_000 });
    await claim();
    const times: number[] = [];
    for (let n = 0; n < 20; n++) {
      const started = performance.now();
      await claim();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(times.length / 2)] as number, buffers: await keptClaimBuffers(pool, 4, 1_000, KEY) };
  } finally {
    await pool.end();
  }
}

describe("claims beside tenants that hold parked runs", () => {
  it("stay fair and cost what the due work costs while a backlog drains", { timeout: 300_000 }, async () => {
    const tenants = size(2_000, 10_000);
    const backlog = size(2_000, 20_000);
    await parkedTenants(db.sql, { count: tenants, prefix: "parked", workflowKey: KEY });
    const a = await tenant("backlog-a");
    const b = await tenant("backlog-b");
    await db.sql`
      INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, claimable_at, created_at)
      SELECT gen_random_uuid(), ${a}, 'fault-parked', 1, ${KEY}, 'queued', jsonb_build_object('n', g),
             now() - interval '1 hour' + g * interval '1 millisecond', now() - interval '1 hour'
      FROM generate_series(1, ${backlog}) g`;
    await db.sql`ANALYZE`;
    worker = createWorker({
      sql: db.sql,
      registry: createRegistry([parked]),
      logger: silentLogger,
      concurrency: CONCURRENCY,
      pollMs: 200,
    });
    await worker.start();
    const completedOfA = async () =>
      Number((await db.sql`SELECT count(*) AS n FROM runs WHERE tenant_id = ${a} AND status = 'completed'`)[0]?.n);
    await waitFor(completedOfA, (done) => done >= CONCURRENCY * 3, {
      describe: "the worker to be working through tenant A's backlog",
      timeoutMs: 60_000,
    });
    const [before] = await db.sql<{ id: string }[]>`SELECT coalesce(max(id), 0)::text AS id FROM run_events`;
    const created = performance.now();
    const run = await createRun(db.sql, {
      tenantId: b,
      workflowName: "fault-parked",
      workflowVersion: 1,
      input: { n: 0 },
      definition: parked,
    });
    const [bEvent] = await waitFor(
      () =>
        db.sql<
          { id: string }[]
        >`SELECT id::text AS id FROM run_events WHERE run_id = ${run.id} AND type = 'leased' ORDER BY id LIMIT 1`,
      (rows) => rows.length === 1,
      { describe: "tenant B's run to be leased", timeoutMs: 60_000, everyMs: 5 },
    );
    const startedMs = performance.now() - created;
    const [row] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM run_events e JOIN runs r ON r.id = e.run_id
      WHERE r.tenant_id = ${a} AND e.type = 'leased' AND e.id > ${before?.id as string} AND e.id < ${bEvent?.id as string}`;
    const aheadOfB = row?.n ?? 0;
    const cost = await claimCost();
    const drained = await completedOfA();
    printCounts("parked tenants while a backlog drains", {
      tenants,
      backlog,
      concurrency: CONCURRENCY,
      aheadOfB,
      startedMs: startedMs.toFixed(1),
      claimP50Ms: cost.p50.toFixed(2),
      claimBuffers: cost.buffers,
      drainedOfA: drained,
    });
    expect(aheadOfB).toBeLessThanOrEqual(2 * CONCURRENCY);
    expect(cost.buffers).toBeLessThanOrEqual(500);
    // None of the parked tenants' runs was touched: nothing of theirs was due.
    const [moved] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM runs WHERE tenant_id NOT IN (${a}, ${b}) AND status IN ('completed', 'failed')`;
    expect(moved?.n).toBe(0);
  });
});
