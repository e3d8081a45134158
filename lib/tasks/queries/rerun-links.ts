import { isUuid, type SqlHandle } from "@runifold/store";
import { RERUN_AS_EVENT, RERUN_OF_EVENT } from "../rerun-task";

/** A task's rerun links as its history records them (lib/tasks/rerun-task.ts): what it reran, what reran it. */
export type RerunLinks = { rerunOf: string | null; rerunAs: string[] };

/**
 * Read from the run's own `rerun_of` / `rerun_as` events (run_events_run_idx serves the lookup),
 * scoped like findTaskDetail. A linked ID may since have been purged by retention; the page's link
 * then opens its tombstone.
 */
export async function readRerunLinks(sql: SqlHandle, params: { taskId: string; scope: string[] | null }): Promise<RerunLinks> {
  const links: RerunLinks = { rerunOf: null, rerunAs: [] };
  if (!isUuid(params.taskId)) return links;
  const rows = await sql.unsafe<{ type: string; task_id: string }[]>(
    `SELECT e.type, e.payload->>'taskId' AS task_id FROM run_events e
     WHERE e.run_id = $1 AND e.type IN ($3, $4)
       AND EXISTS (SELECT 1 FROM runs r WHERE r.id = $1 AND ($2::uuid[] IS NULL OR r.tenant_id = ANY($2::uuid[])))
     ORDER BY e.id`,
    [params.taskId, params.scope, RERUN_OF_EVENT, RERUN_AS_EVENT],
  );
  for (const row of rows) {
    if (row.type === RERUN_OF_EVENT) links.rerunOf = row.task_id;
    else links.rerunAs.push(row.task_id);
  }
  return links;
}
