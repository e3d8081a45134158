import { isUuid, PREPARED, type SqlHandle } from "@runifold/store";
import type postgres from "postgres";
import { type ApiKeyWithTenant, KEY_WITH_TENANT_COLUMNS } from "../../../db/queries/api-keys";
import { TASK_RECORD_COLUMNS, type TaskRecord, toTaskRecord } from "./task-record";

/**
 * An API key (with what authorization needs of its tenant) and one task of that key's tenant, in one
 * round trip: the modern tasks/get names its task in a header (`Mcp-Name`), so the gate can read the
 * task while it reads the key instead of after it (tasks/get is the call clients poll). The task's
 * tenant comes from the key row in the statement itself, never from the request; the caller uses
 * the task only once the key has been verified, and binds it to the key like any other lookup
 * (task-binding.ts). `task` is undefined for an unknown id or one of another tenant.
 */
export async function readApiKeyWithTask(
  sql: SqlHandle,
  params: { keyId: string; taskId: string },
): Promise<{ key: ApiKeyWithTenant; task: TaskRecord | undefined } | undefined> {
  const taskId = isUuid(params.taskId) ? params.taskId : null;
  const rows = await sql.unsafe<(ApiKeyWithTenant & { task: postgres.Row | null })[]>(
    `SELECT ${KEY_WITH_TENANT_COLUMNS},
            to_jsonb(task) AS task
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
     LEFT JOIN LATERAL (
       SELECT ${TASK_RECORD_COLUMNS} FROM runs r WHERE r.id = $2::uuid AND r.tenant_id = k.tenant_id
     ) task ON true
     WHERE k.id = $1`,
    [params.keyId, taskId],
    PREPARED,
  );
  const row = rows[0];
  if (!row) return undefined;
  const { task, ...key } = row;
  return { key, task: task ? toTaskRecord(task) : undefined };
}
