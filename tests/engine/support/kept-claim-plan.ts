import type postgres from "postgres";

/**
 * The plan of the claim statement a one-connection pool has prepared (postgres.js names it), as
 * EXPLAIN prints it for `EXECUTE` with `options` (e.g. "COSTS OFF"). With ANALYZE the claim really
 * runs, inside a transaction that is rolled back. Arguments: versions `{plan@1}`, limit 4, lease 30 s.
 */
export async function keptClaimPlan(pool: postgres.Sql, options: string, workerId = "plan-test"): Promise<string> {
  const [prepared] = await pool<{ name: string }[]>`
    SELECT name FROM pg_prepared_statements WHERE statement LIKE '%SKIP LOCKED%' AND statement NOT LIKE '%pg_prepared_statements%'`;
  if (!prepared) throw new Error("the claim was not prepared on this connection");
  const analyze = /\bANALYZE\b/.test(options);
  if (analyze) await pool.unsafe("BEGIN");
  try {
    const plan = await pool.unsafe<{ "QUERY PLAN": string }[]>(
      `EXPLAIN (${options}) EXECUTE "${prepared.name}"('{plan@1}', 4, '${workerId}', 30000, '{}')`,
    );
    return plan.map((line) => line["QUERY PLAN"]).join("\n");
  } finally {
    if (analyze) await pool.unsafe("ROLLBACK");
  }
}
