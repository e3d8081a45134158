import { claimRuns, LEASE_PLAN_SETTINGS } from "@runifold/sdk/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { keptClaimBuffers } from "./support/kept-claim-plan";
import { parkedTenants } from "./support/parked-tenants";

/**
 * A claim's cost follows the work that is due, not the tenants that hold parked work (review 3,
 * E2): 10,000 tenants each hold parked runs (asleep, waiting with and without a timeout, leased by
 * a live worker) while two tenants have a due backlog. Before, every claim walked every tenant with
 * any live run: 230,903 buffers and 494 ms a claim at 10,000 tenants. The buffer count is the
 * assertion (it does not depend on the machine's load); the time is printed, and bounded only
 * loosely (an order of magnitude under the old cost), since this 2-core machine runs other tests
 * at the same time. The bench reports the same figure (bench/claim-scale.ts).
 */
const TENANTS = 10_000;
const LIMIT = 4;
/** A worker always passes its share of the fleet as the default cap; high enough here that it never binds. */
const TENANT_LIMIT = 1_000;

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  // The lease pool's plan settings, commits asynchronous (as with RUNIFOLD_LEASE_COMMIT=async) so the
  // time measured is the claim's and not the disk's flush.
  pool = postgres(db.url, { max: 1, onnotice: () => {}, connection: { ...LEASE_PLAN_SETTINGS, synchronous_commit: "off" } });
  await parkedTenants(db.sql, { count: TENANTS, prefix: "parked", workflowKey: "plan@1" });
  const busy = await db.sql<{ id: string }[]>`
    INSERT INTO tenants (slug, name) VALUES ('backlog-a', 'A'), ('backlog-b', 'B') RETURNING id`;
  for (const tenant of busy)
    await db.sql`
      INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
      SELECT gen_random_uuid(), ${tenant.id}, 'plan', 1, 'plan@1', 'queued', '{}', 'engine', 0, now() - interval '1 minute' + g * interval '1 ms'
      FROM generate_series(1, 5000) g`;
  await db.sql`ANALYZE`;
}, 300_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe(`a claim with ${TENANTS.toLocaleString("en")} tenants holding parked runs`, () => {
  it("costs what the due backlog costs, not what the parked tenants hold", async () => {
    const claim = () =>
      claimRuns(pool, {
        workerId: "scale-test",
        workflowKeys: ["plan@1"],
        limit: LIMIT,
        leaseMs: 30_000,
        tenantLimit: TENANT_LIMIT,
      });
    await claim(); // prepares the statement (the lease pool keeps one generic plan)
    const times: number[] = [];
    for (let n = 0; n < 30; n++) {
      const started = performance.now();
      expect(await claim()).toHaveLength(LIMIT);
      times.push(performance.now() - started);
    }
    const p50 = times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
    const buffers = await keptClaimBuffers(pool, LIMIT, TENANT_LIMIT);
    process.stdout.write(
      `[claim-scale] ${TENANTS} parked tenants, claim of ${LIMIT}: p50 ${p50.toFixed(2)} ms, ${buffers} buffers\n`,
    );
    expect(buffers).toBeLessThanOrEqual(500);
    expect(p50).toBeLessThan(50);
  });

  it("reaches a timer that comes due at any of those tenants", async () => {
    const [due] = await db.sql<{ id: string }[]>`
      UPDATE runs SET claimable_at = now() - interval '1 second'
      WHERE id = (SELECT id FROM runs WHERE status = 'sleeping' ORDER BY id LIMIT 1) RETURNING id`;
    // The backlog keeps its fair share; the timer's tenant, with nothing running, ranks first.
    const claimed = await claimRuns(pool, {
      workerId: "scale-test",
      workflowKeys: ["plan@1"],
      limit: LIMIT,
      leaseMs: 30_000,
      tenantLimit: TENANT_LIMIT,
    });
    expect(claimed.map((run) => run.id)).toContain(due?.id);
    expect(claimed.find((run) => run.id === due?.id)?.claimed_from).toBe("sleeping");
  });
});
