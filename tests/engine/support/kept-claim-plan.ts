import type postgres from "postgres";

/**
 * The plan of the claim statement a one-connection pool has prepared (postgres.js names it), as
 * EXPLAIN prints it for `EXECUTE` with `options` (e.g. "COSTS OFF"). With ANALYZE the claim really
 * runs, inside a transaction that is rolled back. Arguments: versions `{workflowKey}` (plan@1),
 * `limit` (4), lease 30 s, nothing excluded, `tenantLimit` (none).
 */
export async function keptClaimPlan(
  pool: postgres.Sql,
  options: string,
  workerId = "plan-test",
  limit = 4,
  tenantLimit: number | null = null,
  workflowKey = "plan@1",
): Promise<string> {
  const [prepared] = await pool<{ name: string }[]>`
    SELECT name FROM pg_prepared_statements WHERE statement LIKE '%SKIP LOCKED%' AND statement NOT LIKE '%pg_prepared_statements%'`;
  if (!prepared) throw new Error("the claim was not prepared on this connection");
  const analyze = /\bANALYZE\b/.test(options);
  if (analyze) await pool.unsafe("BEGIN");
  try {
    const plan = await pool.unsafe<{ "QUERY PLAN": string }[]>(
      `EXPLAIN (${options}) EXECUTE "${prepared.name}"('{${workflowKey}}', ${limit}, '${workerId}', 30000, '{}', ${tenantLimit ?? "NULL"})`,
    );
    return plan.map((line) => line["QUERY PLAN"]).join("\n");
  } finally {
    if (analyze) await pool.unsafe("ROLLBACK");
  }
}

/**
 * Shared buffers one execution of the kept claim touches (hits + reads of its top plan node, which
 * counts every node and CTE under it; planning excluded: the plan is kept). Buffer counts do not
 * depend on the machine's load, so a test can hold a claim's cost to them.
 */
export async function keptClaimBuffers(
  pool: postgres.Sql,
  limit = 4,
  tenantLimit: number | null = null,
  workflowKey = "plan@1",
): Promise<number> {
  const plan = await keptClaimPlan(pool, "ANALYZE, BUFFERS, COSTS OFF, TIMING OFF", "plan-test", limit, tenantLimit, workflowKey);
  const top = plan.split("\n").find((line) => /^\s*Buffers: shared/.test(line));
  const hit = Number(top?.match(/hit=(\d+)/)?.[1] ?? 0);
  const read = Number(top?.match(/read=(\d+)/)?.[1] ?? 0);
  if (!top) throw new Error(`no buffer counts in the plan:\n${plan}`);
  return hit + read;
}
