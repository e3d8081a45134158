import type { RunStatus } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";

const ACTIVE: RunStatus[] = ["queued", "leased", "sleeping", "waiting_signal", "waiting_input"];

/**
 * Active runs by status, per visible tenant. Driven from the tenants table so each count is an
 * index-only probe of runs_tenant_status_created_idx, never a scan of all runs.
 */
export async function countActiveByStatus(sql: SqlHandle, scope: string[] | null): Promise<{ status: RunStatus; n: number }[]> {
  return sql.unsafe(
    `SELECT s.status, sum((SELECT count(*) FROM runs r WHERE r.tenant_id = t.id AND r.status = s.status))::int AS n
     FROM tenants t CROSS JOIN unnest($2::text[]) AS s(status)
     WHERE ($1::uuid[] IS NULL OR t.id = ANY($1::uuid[]))
     GROUP BY s.status`,
    [scope, ACTIVE],
  );
}

/** Runs that finished in the last `hours`, by final status (runs_finished_idx). */
export async function countFinishedSince(
  sql: SqlHandle,
  scope: string[] | null,
  hours: number,
): Promise<{ status: RunStatus; n: number }[]> {
  return sql.unsafe(
    `SELECT status, count(*)::int AS n FROM runs
     WHERE finished_at > now() - make_interval(hours => $2) AND ($1::uuid[] IS NULL OR tenant_id = ANY($1::uuid[]))
     GROUP BY status`,
    [scope, hours],
  );
}

export type RecentFailureRow = {
  id: string;
  tenant_slug: string;
  tool_name: string | null;
  workflow_key: string;
  finished_at: Date;
  message: string | null;
};

export async function listRecentFailures(sql: SqlHandle, scope: string[] | null, limit: number): Promise<RecentFailureRow[]> {
  return sql.unsafe<RecentFailureRow[]>(
    `SELECT r.id, t.slug AS tenant_slug, rt.tool_name, r.workflow_key, r.finished_at,
            coalesce((SELECT e.payload #>> '{error,message}' FROM run_events e WHERE e.run_id = r.id AND e.type = 'failed' ORDER BY e.id DESC LIMIT 1),
                     r.status_message) AS message
     FROM runs r JOIN tenants t ON t.id = r.tenant_id LEFT JOIN routes rt ON rt.id = r.route_id
     WHERE r.finished_at > now() - interval '24 hours' AND r.status = 'failed'
       AND ($1::uuid[] IS NULL OR r.tenant_id = ANY($1::uuid[]))
     ORDER BY r.finished_at DESC LIMIT $2`,
    [scope, limit],
  );
}

export type MinuteBucketRow = { minute: Date; route: string; created: number; finished: number };

/**
 * Tasks created and finished per minute over the last hour, by route (tenant/tool). Created counts
 * walk runs_tenant_created_idx per visible tenant; finished counts walk runs_finished_idx.
 */
export async function tasksPerMinute(sql: SqlHandle, scope: string[] | null): Promise<MinuteBucketRow[]> {
  return sql.unsafe<MinuteBucketRow[]>(
    `WITH created AS (
       SELECT date_trunc('minute', r.created_at) AS minute, r.tenant_id, r.route_id, r.workflow_key, count(*)::int AS n
       FROM tenants t JOIN LATERAL (
         SELECT created_at, tenant_id, route_id, workflow_key FROM runs
         WHERE tenant_id = t.id AND created_at > date_trunc('minute', now()) - interval '59 minutes'
       ) r ON true
       WHERE ($1::uuid[] IS NULL OR t.id = ANY($1::uuid[]))
       GROUP BY 1, 2, 3, 4
     ), finished AS (
       SELECT date_trunc('minute', finished_at) AS minute, tenant_id, route_id, workflow_key, count(*)::int AS n
       FROM runs
       WHERE finished_at > date_trunc('minute', now()) - interval '59 minutes' AND ($1::uuid[] IS NULL OR tenant_id = ANY($1::uuid[]))
       GROUP BY 1, 2, 3, 4
     ), merged AS (
       SELECT minute, tenant_id, route_id, workflow_key, n AS created, 0 AS finished FROM created
       UNION ALL
       SELECT minute, tenant_id, route_id, workflow_key, 0, n FROM finished
     )
     SELECT m.minute, t.slug || '/' || coalesce(rt.tool_name, m.workflow_key) AS route,
            sum(m.created)::int AS created, sum(m.finished)::int AS finished
     FROM merged m JOIN tenants t ON t.id = m.tenant_id LEFT JOIN routes rt ON rt.id = m.route_id
     GROUP BY 1, 2 ORDER BY 1, 2`,
    [scope],
  );
}
