import type postgres from "postgres";

/**
 * Inserts `count` runs directly (no engine), in one statement: `finishedAgoMs` sets how long ago
 * they finished (terminal runs cannot be UPDATEd, so age must be given at insert time). Each run
 * gets a created event, a terminal event with a result (terminal statuses only), a memoized step,
 * an input and a signal (not when `lean`), so a purge must clear every child table. Returns the ids.
 */
export async function seedRuns(
  sql: postgres.Sql | postgres.TransactionSql,
  params: {
    tenantId: string;
    count: number;
    finishedAgoMs: number;
    statuses?: string[];
    workflowKey?: string;
    setFinishedAt?: boolean;
    lean?: boolean;
  },
): Promise<string[]> {
  const statuses = params.statuses ?? ["completed", "failed", "cancelled"];
  const [name = "bulk", version = "1"] = (params.workflowKey ?? "bulk@1").split("@");
  const rows = await sql.unsafe<{ id: string }[]>(
    `WITH ins AS (
       INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin,
                         created_at, updated_at, finished_at)
       SELECT gen_random_uuid(), $1, $5, $6, $5::text || '@' || $6::int, ($3::text[])[1 + i % cardinality($3::text[])],
              jsonb_build_object('i', i), 'engine',
              now() - ($2::float8 + 60000 + i) * interval '1 millisecond', now() - ($2::float8 + i) * interval '1 millisecond',
              CASE WHEN $7 THEN now() - ($2::float8 + i) * interval '1 millisecond' END
       FROM generate_series(1, $4) AS i
       RETURNING id, status, input
     ), events AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'created', jsonb_build_object('workflow', 'bulk') FROM ins
       UNION ALL
       SELECT id, status, CASE status
           WHEN 'completed' THEN jsonb_build_object('result', jsonb_build_object('content',
             jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'done ' || (input->>'i')))))
           WHEN 'failed' THEN jsonb_build_object('error', jsonb_build_object('code', -32603, 'message', 'boom'))
           ELSE jsonb_build_object('reason', 'Cancelled') END
       FROM ins WHERE status IN ('completed', 'failed', 'cancelled')
     ), steps AS (
       INSERT INTO run_steps (run_id, key, output) SELECT id, 'only', input FROM ins
     ), inputs AS (
       INSERT INTO run_inputs (run_id, key, request) SELECT id, 'ask', '{"method":"elicitation/create"}' FROM ins WHERE NOT $8
     ), signals AS (
       INSERT INTO run_signals (run_id, name, payload) SELECT id, 'go', '{}' FROM ins WHERE NOT $8
     )
     SELECT id FROM ins`,
    [
      params.tenantId,
      params.finishedAgoMs,
      statuses,
      params.count,
      name,
      Number(version),
      params.setFinishedAt ?? true,
      params.lean ?? false,
    ],
  );
  return rows.map((r) => r.id);
}

export async function countRows(sql: postgres.Sql, table: string, ids: string[]): Promise<number> {
  const column = table === "runs" ? "id" : "run_id";
  const rows = await sql.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = ANY($1::uuid[])`, [
    ids,
  ]);
  return rows[0]?.n ?? 0;
}

export const CHILD_TABLES = ["runs", "run_events", "run_steps", "run_inputs", "run_signals"] as const;
