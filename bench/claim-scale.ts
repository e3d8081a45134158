// (6) A claim's cost at 10,000 tenants that each hold parked runs (review 3, E2): every tenant has a run
// asleep until tomorrow, one waiting for an answer with a timeout, one waiting for a signal and one
// leased by a live worker; two tenants have a due backlog. Claims of 4 and of 16 runs on a lease pool
// (LEASE_PLAN_SETTINGS, asynchronous commit: the statement's own cost, without the WAL flush that
// runifold-worker's default RUNIFOLD_LEASE_COMMIT=sync adds), timed from the client, and the
// buffers one claim touches (EXPLAIN ANALYZE, BUFFERS of the kept plan, rolled back), which do not
// depend on the machine's load. Before claims read due work only, they walked every such tenant:
// 230,903 buffers and 494 ms a claim at this size (PostgreSQL 15, review 3).
import { LEASE_PLAN_SETTINGS } from "@runifold/sdk";
import { claimRuns } from "@runifold/sdk/testing";
import { migrate } from "@runifold/store";
import postgres from "postgres";
import type { BenchContext } from "./lib/context";
import { recreateDatabase } from "./lib/pg";
import { summary } from "./lib/stats";

const TENANTS = 10_000;
const KEY = "claims@1";
/** A default cap high enough that the bench's own leases of the backlog never stop a claim. */
const TENANT_LIMIT = 100_000;

async function prepare(sql: postgres.Sql, backlog: number) {
  await migrate(sql);
  const ids = (
    await sql<{ id: string }[]>`
      INSERT INTO tenants (slug, name) SELECT 'parked-' || g, 'Parked ' || g FROM generate_series(1, ${TENANTS}) g RETURNING id`
  ).map((row) => row.id);
  const parked = (status: string, claimableAt: string) =>
    sql.unsafe(
      `INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
       SELECT gen_random_uuid(), t, 'claims', 1, '${KEY}', '${status}', '{}', 'engine', 1, ${claimableAt} FROM unnest($1::uuid[]) t`,
      [ids],
    );
  await parked("sleeping", "now() + interval '1 day'");
  await parked("waiting_input", "now() + interval '1 day'");
  await parked("waiting_signal", "NULL");
  await parked("queued", "now() - interval '1 hour'");
  await sql`ANALYZE`;
  await claimRuns(sql, { workerId: "live-worker", workflowKeys: [KEY], limit: TENANTS, leaseMs: 3_600_000 });
  for (const slug of ["backlog-a", "backlog-b"]) {
    const [tenant] = await sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES (${slug}, ${slug}) RETURNING id`;
    await sql`
      INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
      SELECT gen_random_uuid(), ${tenant?.id as string}, 'claims', 1, ${KEY}, 'queued', '{}', 'engine', 0,
             now() - interval '1 minute' + g * interval '1 ms'
      FROM generate_series(1, ${backlog}) g`;
  }
  await sql`VACUUM ANALYZE`;
}

async function buffersOfOneClaim(pool: postgres.Sql, limit: number): Promise<number> {
  const [prepared] = await pool<{ name: string }[]>`
    SELECT name FROM pg_prepared_statements WHERE statement LIKE '%SKIP LOCKED%' AND statement NOT LIKE '%pg_prepared_statements%'`;
  await pool.unsafe("BEGIN");
  try {
    const plan = await pool.unsafe<{ "QUERY PLAN": string }[]>(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE "${prepared?.name}"('{${KEY}}', ${limit}, 'bench', 30000, '{}', ${TENANT_LIMIT})`,
    );
    const top = plan.map((line) => line["QUERY PLAN"]).find((line) => /^\s*Buffers: shared/.test(line)) ?? "";
    return Number(top.match(/hit=(\d+)/)?.[1] ?? 0) + Number(top.match(/read=(\d+)/)?.[1] ?? 0);
  } finally {
    await pool.unsafe("ROLLBACK");
  }
}

export async function benchClaimScale(ctx: BenchContext) {
  const claims = ctx.quick ? 100 : 300;
  const url = await recreateDatabase(ctx.adminUrl, "bench_claims");
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    ctx.log(`claims: ${TENANTS} tenants holding parked runs, a backlog of two tenants`);
    await prepare(sql, claims * 12);
    for (const limit of [4, 16]) {
      // One connection per size: each keeps its own generic plan, as a worker's lease pool does.
      const pool = postgres(url, {
        max: 1,
        onnotice: () => {},
        connection: { ...LEASE_PLAN_SETTINGS, synchronous_commit: "off" },
      });
      try {
        const claim = () =>
          claimRuns(pool, { workerId: "bench", workflowKeys: [KEY], limit, leaseMs: 30_000, tenantLimit: TENANT_LIMIT });
        for (let n = 0; n < 10; n++) await claim(); // the plan is made and kept
        const times: number[] = [];
        for (let n = 0; n < claims / 2; n++) {
          const started = performance.now();
          const claimed = await claim();
          times.push(performance.now() - started);
          if (claimed.length !== limit) throw new Error(`a claim of ${limit} took ${claimed.length}`);
        }
        const s = summary(times);
        const buffers = await buffersOfOneClaim(pool, limit);
        const base = `claims.tenants_${TENANTS}.claim_${limit}`;
        const note = `${s.n} claims of ${limit} on a lease pool, ${TENANTS.toLocaleString("en-US")} tenants each holding 4 parked runs, a due backlog`;
        if (limit === 4) {
          ctx.report.goal(`${base}.p50`, s.p50, note);
          ctx.report.goal(`${base}.buffers`, buffers, "shared buffers one claim touches (EXPLAIN ANALYZE, BUFFERS)");
        } else {
          ctx.report.figure(`${base}.p50`, s.p50, "ms", { note });
          ctx.report.figure(`${base}.buffers`, buffers, "buffers", {
            note: "shared buffers one claim touches; about 30 a run are the index entries of the claimed rows' update",
          });
        }
        ctx.report.figure(`${base}.p99`, s.p99, "ms", { note });
        ctx.log(`  claim of ${limit}: p50 ${s.p50} ms, p99 ${s.p99} ms, ${buffers} buffers`);
      } finally {
        await pool.end();
      }
    }
  } finally {
    await sql.end();
  }
}
