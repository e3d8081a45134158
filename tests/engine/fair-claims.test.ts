import { createRegistry, createRun, createWorker, defineWorkflow, silentLogger, type Worker } from "@runifold/sdk";
import { claimRuns, promoteDueTimers } from "@runifold/sdk/testing";
import type postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";

/**
 * Fair claiming (security review M4): a tenant's backlog must not starve another tenant's runs of the
 * same workflow, and a disabled tenant's runs are not claimed at all.
 */
function quickWorkflow(name: string) {
  return defineWorkflow({
    name,
    version: 1,
    input: z.object({ n: z.number() }),
    async run(ctx, input) {
      const done = await ctx.step("work", async () => ({ n: input.n }));
      return { content: [{ type: "text" as const, text: String(done.n) }] };
    },
  });
}
type Quick = ReturnType<typeof quickWorkflow>;

let db: { sql: postgres.Sql; url: string; drop(): Promise<void> };
const workers: Worker[] = [];

async function tenant(slug: string): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES (${slug}, ${slug}) RETURNING id`;
  if (!row) throw new Error("no tenant");
  return row.id;
}

async function queue(quick: Quick, tenantId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++)
    ids.push(
      (await createRun(db.sql, { tenantId, workflowName: quick.name, workflowVersion: 1, input: { n }, definition: quick })).id,
    );
  return ids;
}

async function completed(ids: string[]): Promise<number> {
  const [row] = await db.sql<
    { n: number }[]
  >`SELECT count(*)::int AS n FROM runs WHERE id = ANY(${ids}) AND status = 'completed'`;
  return row?.n ?? 0;
}

/** Order in which runs were first leased (their first `leased` event), as run ids. */
async function leaseOrder(runIds: string[]): Promise<string[]> {
  const rows = await db.sql<{ run_id: string }[]>`
    SELECT run_id FROM run_events WHERE type = 'leased' AND run_id = ANY(${runIds}) GROUP BY run_id ORDER BY min(id)`;
  return rows.map((r) => r.run_id);
}

beforeAll(async () => {
  db = await freshDatabase();
});
// Each test has its own workflow and tenants (history is append-only), so leftovers never mix in.
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(500)));
});
afterAll(async () => {
  await db.drop();
});

describe("fair claiming across tenants", () => {
  it("gives a one-slot claim to the tenant with the fewest running runs, not the oldest backlog", async () => {
    const quick = quickWorkflow("fair_one_slot");
    const KEY = "fair_one_slot@1";
    const a = await tenant("fair-a1");
    const b = await tenant("fair-b1");
    await queue(quick, a, 20);
    const [bRun] = await queue(quick, b, 1);
    const first = await claimRuns(db.sql, { workerId: "w", workflowKeys: [KEY], limit: 1, leaseMs: 10_000 });
    expect(first.map((r) => r.tenant_id)).toEqual([a]); // A's run is the oldest, nobody runs yet
    // Steady state of a busy worker: one slot frees at a time. Today's FIFO hands it to A again.
    const second = await claimRuns(db.sql, { workerId: "w", workflowKeys: [KEY], limit: 1, leaseMs: 10_000 });
    expect(second.map((r) => r.id)).toEqual([bRun]);
  });

  it("gives every tenant its oldest run before anyone gets a second", async () => {
    const quick = quickWorkflow("fair_spread");
    const KEY = "fair_spread@1";
    const a = await tenant("fair-a2");
    const b = await tenant("fair-b2");
    await queue(quick, a, 50);
    const bRuns = await queue(quick, b, 2);
    const claimed = await claimRuns(db.sql, { workerId: "w", workflowKeys: [KEY], limit: 10, leaseMs: 10_000 });
    expect(claimed).toHaveLength(10);
    expect(
      claimed
        .filter((r) => r.tenant_id === b)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...bRuns].sort());
  });

  it("lets workers claiming at the same instant take disjoint, full shares without waiting", async () => {
    const quick = quickWorkflow("fair_concurrent");
    const a = await tenant("fair-a4");
    const b = await tenant("fair-b4");
    await queue(quick, a, 20);
    await queue(quick, b, 20);
    const claims = await Promise.all(
      Array.from({ length: 4 }, (_, n) =>
        db.sql.begin(async (tx) => {
          await tx`SET LOCAL lock_timeout = '1s'`; // a claim that waited on another's lock would fail
          return claimRuns(tx, { workerId: `w${n}`, workflowKeys: ["fair_concurrent@1"], limit: 5, leaseMs: 10_000 });
        }),
      ),
    );
    const ids = claims.flat().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(20);
    for (const claim of claims) expect(new Set(claim.map((r) => r.tenant_id)).size).toBe(2);
  });

  it("starts a small tenant's runs while a 200-run backlog of another tenant drains", async () => {
    const quick = quickWorkflow("fair_backlog");
    const a = await tenant("fair-a3");
    const b = await tenant("fair-b3");
    const aRuns = await queue(quick, a, 200);
    const bRuns = await queue(quick, b, 5);
    const worker = createWorker({
      sql: db.sql,
      registry: createRegistry([quick]),
      logger: silentLogger,
      concurrency: 2,
      pollMs: 50,
    });
    workers.push(worker);
    await worker.start();
    await waitFor(
      () => completed(bRuns),
      (n): n is number => n === bRuns.length,
      { describe: "tenant B's runs to complete" },
    );
    const order = await leaseOrder([...aRuns, ...bRuns]);
    // Fair share: B's 5 runs are among the first ~2×5 leases; FIFO would lease all 200 of A first.
    const lastB = Math.max(...bRuns.map((id) => order.indexOf(id)));
    expect(lastB).toBeGreaterThanOrEqual(0);
    expect(lastB).toBeLessThan(15);
    expect(order.filter((id) => aRuns.includes(id)).length).toBeLessThan(aRuns.length);
  });

  it("shares a herd of due timers across tenants once the sweep has queued it", async () => {
    const KEY = "fair_herd@1";
    const a = await tenant("fair-herd-a");
    const b = await tenant("fair-herd-b");
    const sleeping = (tenantId: string, count: number, dueAgo: string) => db.sql`
      INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
      SELECT gen_random_uuid(), ${tenantId}, 'fair_herd', 1, ${KEY}, 'sleeping', '{}', 'engine', 1,
             now() - ${dueAgo}::interval - g * interval '1 ms'
      FROM generate_series(1, ${count}) g RETURNING id`;
    await sleeping(a, 50, "10 seconds"); // one tenant's timers, all due at once
    const [bTimer] = await sleeping(b, 1, "5 seconds"); // due a moment later
    const claim = () => claimRuns(db.sql, { workerId: "w", workflowKeys: [KEY], limit: 1, leaseMs: 10_000 });
    // Straight from the timer index, oldest first: B's timer is behind A's herd.
    expect((await claim()).map((r) => r.tenant_id)).toEqual([a]);
    // The sweep queues timers left due for a second; from then on they are shared like any backlog.
    expect(await promoteDueTimers(db.sql, { workflowKeys: [KEY], afterMs: 1_000 })).toBe(50);
    const next = await claim();
    expect(next.map((r) => r.id)).toEqual([bTimer?.id]);
    expect(next[0]?.claimed_from).toBe("queued");
  });

  it("leaves a disabled tenant's runs queued and runs them once it is enabled again", async () => {
    const quick = quickWorkflow("fair_disabled");
    const KEY = "fair_disabled@1";
    const off = await tenant("fair-off");
    await db.sql`UPDATE tenants SET disabled_at = now() WHERE id = ${off}`;
    const ids = await queue(quick, off, 3);
    expect(await claimRuns(db.sql, { workerId: "w", workflowKeys: [KEY], limit: 10, leaseMs: 10_000 })).toEqual([]);
    const worker = createWorker({ sql: db.sql, registry: createRegistry([quick]), logger: silentLogger, pollMs: 50 });
    workers.push(worker);
    await worker.start();
    const other = await tenant("fair-on");
    const [otherRun] = await queue(quick, other, 1);
    await waitFor(
      () => completed([otherRun ?? ""]),
      (n): n is number => n === 1,
      { describe: "the enabled tenant's run to complete" },
    );
    const parked = await db.sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ANY(${ids})`;
    expect(parked.map((r) => r.status)).toEqual(["queued", "queued", "queued"]);
    await db.sql`UPDATE tenants SET disabled_at = NULL WHERE id = ${off}`;
    await waitFor(
      () => completed(ids),
      (n): n is number => n === ids.length,
      { describe: "the re-enabled tenant's runs to complete (within the poll interval)" },
    );
  });
});
