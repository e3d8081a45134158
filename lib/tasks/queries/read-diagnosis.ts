import { isUuid, type SqlHandle } from "@runifold/store";
import { type Diagnosis, diagnoseTask } from "../diagnose-task";
import { HANDLE_EXPIRED_SQL, TERMINAL_PAYLOAD_SQL } from "./task-columns";
import { ONLINE_WORKER_SQL } from "./workers";

/**
 * The diagnosis of one run, read from the store (two queries: the run with its outstanding input
 * keys and terminal payload, and the online workers). For operators' tools — the CLI's
 * `tasks get` — since it names workers and workflow versions that API clients are not shown.
 */
export async function readDiagnosis(
  sql: SqlHandle,
  params: { tenantId: string; taskId: string },
  now = new Date(),
): Promise<Diagnosis | undefined> {
  if (!isUuid(params.taskId)) return undefined;
  const [run] = await sql.unsafe(
    `SELECT r.status, r.workflow_key, r.created_at, r.updated_at, r.finished_at, r.wait_detail, r.lease_owner, r.lease_expires_at,
            r.status_message, r.failure,
            ${HANDLE_EXPIRED_SQL} AS handle_expired,
            (SELECT coalesce(jsonb_agg(i.key ORDER BY i.key), '[]'::jsonb) FROM run_inputs i WHERE i.run_id = r.id AND i.response IS NULL AND i.answered_at IS NULL) AS pending,
            ${TERMINAL_PAYLOAD_SQL} AS terminal
     FROM runs r WHERE r.id = $1 AND r.tenant_id = $2`,
    [params.taskId, params.tenantId],
  );
  if (!run) return undefined;
  const workers = await sql.unsafe<{ id: string; workflows: string[] }[]>(
    `SELECT w.id, w.workflows FROM worker_registrations w WHERE ${ONLINE_WORKER_SQL}`,
  );
  const diagnosis = diagnoseTask(
    {
      status: run.status,
      workflowKey: run.workflow_key,
      createdAt: run.created_at,
      updatedAt: run.updated_at,
      finishedAt: run.finished_at,
      waitDetail: run.wait_detail,
      leaseOwner: run.lease_owner,
      leaseExpiresAt: run.lease_expires_at,
      pendingInputKeys: run.pending,
      handleExpired: run.handle_expired,
      statusMessage: run.status_message,
      terminal: run.terminal ?? undefined,
    },
    workers,
    now,
  );
  // The stored failure cause is for operators only (MCP clients get its code, never its message).
  const failure = run.failure as { code: string; message: string; step?: string; stepAttempt?: number; attempt: number } | null;
  if (failure) {
    const where = [
      failure.step ? `step ${failure.step}` : "",
      failure.stepAttempt ? `execution ${failure.stepAttempt}` : "",
      `attempt ${failure.attempt}`,
    ]
      .filter(Boolean)
      .join(", ");
    diagnosis.notes.push(`failure cause: ${failure.code}: ${failure.message} (${where})`);
  }
  return diagnosis;
}
