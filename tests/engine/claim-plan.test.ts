import { claimRuns, LEASE_PLAN_SETTINGS } from "@runifold/sdk/testing";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";

/**
 * The claim's generic plan is made once per connection, from the statistics of that moment. A
 * worker that starts on a young store must not keep a plan that scans `runs` as the table grows
 * (claim-runs.ts, LEASE_PLAN_SETTINGS): measured 9 ms a claim at 40k runs before the fix.
 */

/** The plan a one-connection pool with these settings keeps for the claim it first ran on an empty `runs`. */
async function claimPlanAfterGrowth(settings: Record<string, string>): Promise<string> {
  const db = await freshDatabase();
  const pool = postgres(db.url, { max: 1, onnotice: () => {}, connection: settings });
  try {
    const [tenant] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('plans', 'Plans') RETURNING id`;
    if (!tenant) throw new Error("no tenant");
    const claim = () => claimRuns(pool, { workerId: "plan-test", workflowKeys: ["plan@1"], limit: 4, leaseMs: 30_000 });
    expect(await claim()).toEqual([]);
    // The store grows after the plan was made: 20k finished runs.
    await db.sql.unsafe(
      `INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints)
       SELECT gen_random_uuid(), $1, 'plan', 1, 'plan@1', 'completed', '{}', 'engine', 0 FROM generate_series(1, 20000)`,
      [tenant.id],
    );
    // The same connection (max 1) still holds the statement postgres.js prepared for the claim.
    const [prepared] = await pool<{ name: string }[]>`
      SELECT name FROM pg_prepared_statements WHERE statement LIKE '%SKIP LOCKED%' AND statement NOT LIKE '%pg_prepared_statements%'`;
    if (!prepared) throw new Error("the claim was not prepared on this connection");
    const plan = await pool.unsafe<{ "QUERY PLAN": string }[]>(
      `EXPLAIN (COSTS OFF) EXECUTE "${prepared.name}"('{plan@1}', 4, 'plan-test', 30000, '{}')`,
    );
    return plan.map((line) => line["QUERY PLAN"]).join("\n");
  } finally {
    await pool.end();
    await db.drop();
  }
}

describe("the lease pool's claim plan", () => {
  it("probes indexes only, however small runs was when the plan was made", async () => {
    const plan = await claimPlanAfterGrowth(LEASE_PLAN_SETTINGS);
    expect(plan).toContain("runs_pkey");
    expect(plan).not.toMatch(/Seq Scan on runs/);
  });

  it("would otherwise keep a sequential scan of runs (what the settings guard against)", async () => {
    const plan = await claimPlanAfterGrowth({ plan_cache_mode: "force_generic_plan" });
    expect(plan).toMatch(/Seq Scan on runs/);
  });
});
