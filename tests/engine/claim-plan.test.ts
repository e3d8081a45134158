import { claimRuns, LEASE_PLAN_SETTINGS } from "@runifold/sdk/testing";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { keptClaimPlan } from "./support/kept-claim-plan";
import { parkedTenants } from "./support/parked-tenants";

/**
 * The claim's generic plan is made once per connection, from the statistics of that moment, and
 * kept for the connection's life (claim-runs.ts, LEASE_PLAN_SETTINGS). Whatever `runs` held when a
 * worker started, its claims must stay index probes as the table and the backlog grow: measured
 * before the fixes, 9 ms a claim at 40k runs (a plan made on an empty table scanned `runs`), and a
 * claim that read the whole backlog through a bitmap of the live runs (a plan made on a backlog of
 * a few thousand), growing with the backlog: 35 ms a claim at 100k queued runs, 1.7 ms with the
 * settings. And a claim walks only the tenants that have runs due now: it used to probe every
 * tenant, through an index the planner picked by its statistics — 0.7 s a claim with 1,000
 * tenants and one tenant's backlog of 5,000, 2.8 s with 10,000 — and then every tenant holding any
 * parked run (a timer for tomorrow, a held lease: 494 ms a claim at 10,000 such tenants, review 3
 * E2); tests/engine/claim-scale.test.ts measures that shape at 10,000 tenants.
 */

type Grow = { before: string; after: string };

const insertRuns = (status: string, count: number) =>
  `INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
   SELECT gen_random_uuid(), $1, 'plan', 1, 'plan@1', '${status}', '{}', 'engine', 0,
          ${status === "queued" ? "now() - interval '1 minute'" : "NULL"}
   FROM generate_series(1, ${count})`;

/** The plan a one-connection pool with these settings keeps for its claim, made on `before` and read after `after`. */
async function claimPlanAfterGrowth(settings: Record<string, string>, grow: Grow): Promise<string> {
  const db = await freshDatabase();
  const pool = postgres(db.url, { max: 1, onnotice: () => {}, connection: settings });
  try {
    const [tenant] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('plans', 'Plans') RETURNING id`;
    if (!tenant) throw new Error("no tenant");
    if (grow.before) {
      await db.sql.unsafe(grow.before, [tenant.id]);
      await db.sql`ANALYZE runs`;
    }
    // A claim of nothing (another version) makes the plan without leasing the backlog.
    expect(await claimRuns(pool, { workerId: "plan-test", workflowKeys: ["other@1"], limit: 4, leaseMs: 30_000 })).toEqual([]);
    await db.sql.unsafe(grow.after, [tenant.id]);
    // The same connection (max 1) still holds the statement postgres.js prepared for the claim.
    return await keptClaimPlan(pool, "COSTS OFF");
  } finally {
    await pool.end();
    await db.drop();
  }
}

/** Made on an empty `runs`; then 20k finished runs arrive. */
const youngStore: Grow = { before: "", after: insertRuns("completed", 20_000) };
/** Made on an empty `runs`; then a burst of 20k queued runs. */
const youngStoreBurst: Grow = { before: "", after: insertRuns("queued", 20_000) };
/** Made on a backlog of 3,000 queued runs; then 20k more are queued. */
const growingBacklog: Grow = { before: insertRuns("queued", 3_000), after: insertRuns("queued", 20_000) };

/** What a claim must never do: read `runs` or `tenants` other than by probing an index for the rows it needs. */
const wholeTableReads = /(Seq Scan|Bitmap Heap Scan) on (runs|tenants)/;
/** The candidates' and the update's look-ups by primary key (`picked`, `claimed`). */
const primaryKeyProbes = (plan: string) => plan.match(/Index Scan using runs_pkey on runs/g)?.length ?? 0;

describe("the lease pool's claim plan", () => {
  it.each([
    ["made on an empty table that then fills with finished runs", youngStore],
    ["made on an empty table before a burst of queued runs", youngStoreBurst],
    ["made on a backlog of a few thousand that then grows", growingBacklog],
  ])("probes indexes only: %s", async (_, grow) => {
    const plan = await claimPlanAfterGrowth(LEASE_PLAN_SETTINGS, grow);
    expect(primaryKeyProbes(plan)).toBe(2);
    expect(plan).not.toMatch(wholeTableReads);
  });

  it("would otherwise keep a sequential scan (what enable_seqscan = off guards against)", async () => {
    // Made on an empty store, the generic plan reads `tenants` (once per claim, every tenant) and,
    // before the candidates were looked up in rank order, `runs` too.
    const plan = await claimPlanAfterGrowth({ plan_cache_mode: "force_generic_plan" }, youngStore);
    expect(plan).toMatch(/Seq Scan on (runs|tenants)/);
  });

  it("probes only the tenants with runs due now, however many tenants hold parked runs", async () => {
    const db = await freshDatabase();
    const pool = postgres(db.url, { max: 1, onnotice: () => {}, connection: LEASE_PLAN_SETTINGS });
    try {
      // 2,000 tenants that each hold parked runs, none of them due: what any product with a nightly
      // workflow or a pending approval per tenant looks like. A claim walked all of them (review 3, E2).
      await parkedTenants(db.sql, { count: 2_000, prefix: "idle", workflowKey: "plan@1" });
      const busy = await db.sql<
        { id: string }[]
      >`INSERT INTO tenants (slug, name) VALUES ('busy-a', 'A'), ('busy-b', 'B') RETURNING id`;
      for (const tenant of busy) await db.sql.unsafe(insertRuns("queued", 3_000), [tenant.id]);
      await db.sql`ANALYZE`;
      const claim = () => claimRuns(pool, { workerId: "plan-test", workflowKeys: ["plan@1"], limit: 4, leaseMs: 30_000 });
      // Both tenants get a share of a claim (fairness is tests/engine/fair-claims.test.ts's subject).
      const claimed = await claim();
      expect(new Set(claimed.map((run) => run.tenant_id))).toEqual(new Set(busy.map((tenant) => tenant.id)));
      const plan = await keptClaimPlan(pool, "ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF");
      // The per-tenant probe (its bounds are the ROW comparisons) ran once per busy tenant, not once per tenant.
      const probe = plan.match(/runs_\w+_idx on runs \w+ \(actual rows=[\d.]+ loops=(\d+)\)\n\s+Index Cond: \(\(ROW/);
      expect(probe?.[1]).toBe("2");
      expect(plan).not.toMatch(/Seq Scan on tenants/);
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});
