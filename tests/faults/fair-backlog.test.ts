import { createRegistry, createRun, createWorker, defineWorkflow, silentLogger, type Worker } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";
import { printCounts, size } from "./support";

/**
 * Fair claiming under a backlog (security review M4): tenant A has 10,000 queued runs of a workflow
 * when tenant B's run of the same workflow arrives. The bound is stated in claims, not in time: B's
 * run is in the first claim the worker starts after B's run is committed, so the A runs leased
 * between the two are at most the claim already in flight (up to the worker's concurrency) plus the
 * others of B's own claim (their events may be written before B's): 2 × concurrency, whatever the
 * backlog. Time to start is printed, never asserted (it measures the machine, not the order).
 */
const CONCURRENCY = 4;
const busy = defineWorkflow({
  name: "fair-backlog",
  version: 1,
  input: z.object({ n: z.number() }),
  async run(ctx, input) {
    await ctx.step("work", async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return input.n;
    });
    return { content: [] };
  },
});

let db: { sql: postgres.Sql; url: string; drop(): Promise<void> };
let worker: Worker | undefined;

async function tenant(slug: string): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES (${slug}, ${slug}) RETURNING id`;
  return row?.id as string;
}

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await worker?.stop(500);
  await db.drop();
});

describe("fair claiming under a 10,000-run backlog", () => {
  it("starts another tenant's run within one claim of a free slot", { timeout: 240_000 }, async () => {
    const backlog = size(10_000, 100_000);
    const a = await tenant("backlog-a");
    const b = await tenant("backlog-b");
    // The backlog as createRun would leave it (queued, claimable now), in one statement.
    await db.sql`
      INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, claimable_at, created_at)
      SELECT gen_random_uuid(), ${a}, 'fair-backlog', 1, 'fair-backlog@1', 'queued', jsonb_build_object('n', g),
             now() - interval '1 hour' + g * interval '1 millisecond', now() - interval '1 hour'
      FROM generate_series(1, ${backlog}) g`;
    await db.sql`ANALYZE runs`;
    worker = createWorker({
      sql: db.sql,
      registry: createRegistry([busy]),
      logger: silentLogger,
      concurrency: CONCURRENCY,
      pollMs: 200,
    });
    await worker.start();
    // The worker is saturated with A's runs before B's run exists.
    await waitFor(
      async () => Number((await db.sql`SELECT count(*) AS n FROM runs WHERE tenant_id = ${a} AND status = 'completed'`)[0]?.n),
      (done) => done >= CONCURRENCY * 3,
      { describe: "the worker to be working through tenant A's backlog", timeoutMs: 60_000 },
    );
    const [before] = await db.sql<{ id: string }[]>`SELECT coalesce(max(id), 0)::text AS id FROM run_events`;
    const created = performance.now();
    const run = await createRun(db.sql, {
      tenantId: b,
      workflowName: "fair-backlog",
      workflowVersion: 1,
      input: { n: 0 },
      definition: busy,
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
    // A's runs first leased after B's run was created and before B's run was leased.
    const [row] = await db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM run_events e JOIN runs r ON r.id = e.run_id
      WHERE r.tenant_id = ${a} AND e.type = 'leased' AND e.id > ${before?.id as string} AND e.id < ${bEvent?.id as string}`;
    const aheadOfB = row?.n ?? 0;
    printCounts("fair claiming under backlog", { backlog, concurrency: CONCURRENCY, aheadOfB, startedMs: startedMs.toFixed(1) });
    expect(aheadOfB).toBeLessThanOrEqual(2 * CONCURRENCY);
  });
});
