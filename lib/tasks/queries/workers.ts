import { WORKER_ONLINE_WINDOW_MS } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";

/**
 * The one definition of "online": a registered worker that has not stopped and heartbeated within
 * the engine's window. A predicate on worker_registrations aliased `w`.
 */
export const ONLINE_WORKER_SQL = `w.stopped_at IS NULL AND w.heartbeat_at > now() - make_interval(secs => ${WORKER_ONLINE_WINDOW_MS / 1000})`;

/** SQL for the online workers as a jsonb array of {id, workflows}: embeddable in other queries. */
export const ONLINE_WORKERS_JSON = `(SELECT coalesce(jsonb_agg(jsonb_build_object('id', w.id, 'workflows', w.workflows) ORDER BY w.id), '[]'::jsonb)
   FROM worker_registrations w
   WHERE ${ONLINE_WORKER_SQL})`;

export type OnlineWorkerRow = {
  id: string;
  hostname: string;
  pid: string;
  workflows: string[];
  concurrency: string;
  started_at: Date;
  heartbeat_at: Date;
  leases: number;
};

/**
 * Online workers with the number of runs each holds a live lease on, counted within `tenantIds`
 * (null = all). runs_tenant_leased_idx holds only leased runs, so this never scans waiting or
 * finished ones.
 */
export async function listOnlineWorkers(sql: SqlHandle, tenantIds: string[] | null): Promise<OnlineWorkerRow[]> {
  return sql.unsafe<OnlineWorkerRow[]>(
    `SELECT w.id, w.hostname, w.pid, w.workflows, w.concurrency, w.started_at, w.heartbeat_at,
            (SELECT count(*)::int FROM runs r
             WHERE r.status = 'leased' AND r.lease_owner = w.id
               AND r.workflow_key = ANY(w.workflows) AND ($1::uuid[] IS NULL OR r.tenant_id = ANY($1::uuid[]))) AS leases
     FROM worker_registrations w
     WHERE ${ONLINE_WORKER_SQL}
     ORDER BY w.started_at, w.id`,
    [tenantIds],
  );
}
