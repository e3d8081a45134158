import { isUuid, type SqlHandle } from "@runifold/store";
import { HISTORY_FORMAT, type HistoryOperation, operationKind, type RunHistory } from "../replay/history-format";
import type { RunStatus } from "../states";

/**
 * A run's history as `runifold tasks history <id> --json` exports it and `replayHistory` reads it:
 * every memoized durable operation (run_steps, without the engine's retry and deadline
 * bookkeeping) and every answered input (run_inputs), ordered by when each was recorded (position
 * first where two share an instant). `tenantIds` scopes the lookup: a run outside them answers
 * undefined, like an unknown one. Values are the workflow's own data (step outputs, answers): an
 * operator's read, never a client's. Two statements, each served by a primary key.
 */
export async function readRunHistory(
  sql: SqlHandle,
  params: { runId: string; tenantIds: string[] | null },
): Promise<RunHistory | undefined> {
  if (!isUuid(params.runId)) return undefined;
  const [run] = await sql.unsafe<{ workflow_name: string; workflow_version: number; status: RunStatus; input: unknown }[]>(
    `SELECT workflow_name, workflow_version, status, input FROM runs
     WHERE id = $1 AND ($2::uuid[] IS NULL OR tenant_id = ANY($2::uuid[]))`,
    [params.runId, params.tenantIds],
  );
  if (!run) return undefined;
  const rows = await sql.unsafe<{ key: string; value: unknown; seq: number | null; at: Date; preflight: boolean }[]>(
    `SELECT key, output AS value, seq, completed_at AS at, false AS preflight FROM run_steps
     WHERE run_id = $1 AND key NOT LIKE 'retry:%' AND key NOT LIKE 'deadline:%'
     UNION ALL
     SELECT 'input:' || key, response, NULL, coalesce(answered_at, requested_at), answered_by = 'preflight' FROM run_inputs
     WHERE run_id = $1 AND response IS NOT NULL
     ORDER BY at, seq NULLS LAST, key`,
    [params.runId],
  );
  const operations = rows.map((row): HistoryOperation => {
    const at = new Date(row.at).toISOString();
    const operation: HistoryOperation = { seq: row.seq, key: row.key, kind: operationKind(row.key), value: row.value, at };
    return row.preflight ? { ...operation, preflight: true } : operation;
  });
  return {
    format: HISTORY_FORMAT,
    taskId: params.runId,
    workflow: { name: run.workflow_name, version: run.workflow_version },
    status: run.status,
    input: run.input,
    operations,
  };
}
