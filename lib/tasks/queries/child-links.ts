import { isUuid, type SqlHandle } from "@runifold/store";

/**
 * A task's engine-made links: the task that started it with ctx.child and the tasks it started
 * (oldest first); and for onFailure's compensation of a cancelled run (migration 0041), the run a
 * compensation run compensates and the compensation runs of a cancelled one.
 */
export type ChildLinks = {
  parentTaskId: string | null;
  childTaskIds: string[];
  compensatesTaskId: string | null;
  compensationTaskIds: string[];
};

/**
 * Read from the runs' own link column (`runs.parent_run_id`, migration 0039; the children through
 * runs_parent_key_idx), scoped like findTaskDetail: nothing for a task outside `scope`, and only
 * linked tasks of the task's own tenant. A linked ID may since have been purged by retention; the
 * page's link then opens its tombstone or "not found".
 */
export async function readChildLinks(sql: SqlHandle, params: { taskId: string; scope: string[] | null }): Promise<ChildLinks> {
  const links: ChildLinks = { parentTaskId: null, childTaskIds: [], compensatesTaskId: null, compensationTaskIds: [] };
  if (!isUuid(params.taskId)) return links;
  // The compensation runs of a cancelled run are named by the trigger's `log` event on it (data
  // compensationRunId), read through run_events_run_idx: runs.compensates_run_id has no index, and
  // a task page must not scan runs for it.
  const [row] = await sql.unsafe<
    {
      parent_task_id: string | null;
      child_task_ids: string[];
      compensates_task_id: string | null;
      compensation_task_ids: string[];
    }[]
  >(
    `SELECT (SELECT p.id FROM runs p WHERE p.id = r.parent_run_id AND p.tenant_id = r.tenant_id) AS parent_task_id,
            ARRAY(SELECT c.id FROM runs c WHERE c.parent_run_id = r.id AND c.tenant_id = r.tenant_id
                  ORDER BY c.created_at, c.id) AS child_task_ids,
            (SELECT o.id FROM runs o WHERE o.id = r.compensates_run_id AND o.tenant_id = r.tenant_id) AS compensates_task_id,
            ARRAY(SELECT c.id FROM run_events e
                    JOIN runs c ON c.id = (e.payload->'data'->>'compensationRunId')::uuid
                               AND c.compensates_run_id = r.id AND c.tenant_id = r.tenant_id
                  WHERE e.run_id = r.id AND e.type = 'log'
                    AND e.payload->'data'->>'compensationRunId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                  ORDER BY e.id) AS compensation_task_ids
     FROM runs r WHERE r.id = $1 AND ($2::uuid[] IS NULL OR r.tenant_id = ANY($2::uuid[]))`,
    [params.taskId, params.scope],
  );
  return row
    ? {
        parentTaskId: row.parent_task_id,
        childTaskIds: row.child_task_ids,
        compensatesTaskId: row.compensates_task_id,
        compensationTaskIds: row.compensation_task_ids,
      }
    : links;
}
