import { isUuid, type SqlHandle } from "@runifold/store";

/** What a step's retry state holds (`run_steps` key `retry:<key>`, packages/sdk/src/ops/record-step-failure.ts). */
export type StepRetryRow = { failures: number; retryAt: string; lastError?: { name: string; message: string } };

/**
 * One memoized durable operation of a run as the task page reads it: its key (`section-1`,
 * `sleep:settle`, `signal:approved#1`, `retry:section-1`), position, when it was recorded, and the
 * start of its pretty-printed output (never the whole of a large one: that is read on demand).
 */
export type TaskStepRow = {
  key: string;
  seq: number | null;
  completed_at: Date;
  output_bytes: number | null;
  preview: string | null;
  pretty_chars: number | null;
  retry_state: StepRetryRow | null;
};

/**
 * A run's steps, timers, signal deliveries and step retry states in call order, with each output cut
 * to `previewChars` in SQL, so a poll of the task page never ships a megabyte step. Signal deadlines
 * (`deadline:*`) are internal and left out. Scoped like findTaskDetail (another tenant's run has no
 * steps). Served by the run_steps primary key (run_id, key).
 */
export async function listTaskSteps(
  sql: SqlHandle,
  params: { taskId: string; scope: string[] | null; previewChars: number; limit: number },
): Promise<TaskStepRow[]> {
  if (!isUuid(params.taskId)) return [];
  return sql.unsafe<TaskStepRow[]>(
    `SELECT s.key, s.seq, s.completed_at, octet_length(s.output::text) AS output_bytes,
            CASE WHEN s.key NOT LIKE 'retry:%' THEN left(p.pretty, $3) END AS preview,
            CASE WHEN s.key NOT LIKE 'retry:%' THEN length(p.pretty) END AS pretty_chars,
            CASE WHEN s.key LIKE 'retry:%' THEN s.output END AS retry_state
     FROM run_steps s CROSS JOIN LATERAL (SELECT jsonb_pretty(s.output) AS pretty) p
     WHERE s.run_id = $1 AND s.key NOT LIKE 'deadline:%'
       AND EXISTS (SELECT 1 FROM runs r WHERE r.id = $1 AND ($2::uuid[] IS NULL OR r.tenant_id = ANY($2::uuid[])))
     ORDER BY s.seq NULLS LAST, s.completed_at, s.key
     LIMIT $4`,
    [params.taskId, params.scope, params.previewChars, params.limit],
  );
}

/** One step's whole output, pretty-printed ("show all"); undefined when the run or step is not visible. */
export async function readStepOutput(
  sql: SqlHandle,
  params: { taskId: string; key: string; scope: string[] | null },
): Promise<string | undefined> {
  if (!isUuid(params.taskId)) return undefined;
  const rows = await sql.unsafe<{ pretty: string | null }[]>(
    `SELECT jsonb_pretty(s.output) AS pretty FROM run_steps s
     WHERE s.run_id = $1 AND s.key = $2 AND s.key NOT LIKE 'retry:%' AND s.key NOT LIKE 'deadline:%'
       AND EXISTS (SELECT 1 FROM runs r WHERE r.id = $1 AND ($3::uuid[] IS NULL OR r.tenant_id = ANY($3::uuid[])))`,
    [params.taskId, params.key, params.scope],
  );
  const row = rows[0];
  return row ? (row.pretty ?? "null") : undefined;
}
