import { isUuid, type SqlHandle } from "@runifold/store";

/** A task's ctx.child links: the task that started it, and the tasks it started (oldest first). */
export type ChildLinks = { parentTaskId: string | null; childTaskIds: string[] };

/**
 * Read from the runs' own link column (`runs.parent_run_id`, migration 0039; the children through
 * runs_parent_key_idx), scoped like findTaskDetail: nothing for a task outside `scope`, and only
 * linked tasks of the task's own tenant. A linked ID may since have been purged by retention; the
 * page's link then opens its tombstone or "not found".
 */
export async function readChildLinks(sql: SqlHandle, params: { taskId: string; scope: string[] | null }): Promise<ChildLinks> {
  const links: ChildLinks = { parentTaskId: null, childTaskIds: [] };
  if (!isUuid(params.taskId)) return links;
  const [row] = await sql.unsafe<{ parent_task_id: string | null; child_task_ids: string[] }[]>(
    `SELECT (SELECT p.id FROM runs p WHERE p.id = r.parent_run_id AND p.tenant_id = r.tenant_id) AS parent_task_id,
            ARRAY(SELECT c.id FROM runs c WHERE c.parent_run_id = r.id AND c.tenant_id = r.tenant_id
                  ORDER BY c.created_at, c.id) AS child_task_ids
     FROM runs r WHERE r.id = $1 AND ($2::uuid[] IS NULL OR r.tenant_id = ANY($2::uuid[]))`,
    [params.taskId, params.scope],
  );
  return row ? { parentTaskId: row.parent_task_id, childTaskIds: row.child_task_ids } : links;
}
