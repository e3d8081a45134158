import "server-only";
import type { SqlHandle } from "@runifold/store";
import { listRouteRevisions, type RouteRow } from "../../../db/queries/routes";
import { describeSchedule, listPublishedDefinitions } from "../../admin";
import type { Operator } from "../../auth";
import { listOnlineWorkers } from "../../tasks";
import { listVisibleTenants } from "./tenants";

export type RouteItem = {
  tenantId: string;
  tenantSlug: string;
  tool: string;
  revision: number;
  title: string | null;
  description: string;
  workflowName: string;
  workflowVersion: number;
  workflowKey: string;
  taskSupport: RouteRow["task_support"];
  disabled: boolean;
  /** Online workers serving the exact workflow version. */
  servedBy: number;
  inputSchema: Record<string, unknown>;
  /** The cron schedule this revision carries and its next fire times (null: none). */
  schedule: {
    cron: string;
    timezone: string;
    catchUp: "skip" | "one";
    paused: boolean;
    /** The tool arguments each scheduled run starts with (kept when the cron is changed on the page). */
    input: Record<string, unknown>;
    /** The next 5 fire times (croner), whether paused or not: what resuming would fire. */
    next: string[];
  } | null;
  /** The published definition revision bound (null: bound unpublished). */
  definitionRevision: number | null;
  createdAt: string;
};

export type RoutesView = {
  routes: RouteItem[];
  tenants: { id: string; slug: string }[];
  /**
   * Workflow versions workers have published, for the add/revise form; `servedBy` counts the online
   * workers serving each now (0: runs of it would wait for one).
   */
  knownWorkflows: { name: string; version: number; revision: number; servedBy: number }[];
};

/** The current revision of every tool in the operator's tenants, with whether a worker serves it. */
export async function presentRoutes(sql: SqlHandle, operator: Operator): Promise<RoutesView> {
  const tenants = await listVisibleTenants(sql, operator);
  const [revisions, workers] = await Promise.all([
    operator.tenantIds === null
      ? listRouteRevisions(sql)
      : Promise.all(tenants.map((t) => listRouteRevisions(sql, t.id))).then((all) => all.flat()),
    listOnlineWorkers(sql, operator.tenantIds),
  ]);
  const definitions = await listPublishedDefinitions({ sql });
  const seen = new Set<string>();
  const routes: RouteItem[] = [];
  // Revisions come newest first per (tenant, tool): the first one seen is the current one.
  for (const row of revisions) {
    const id = `${row.tenant_id}/${row.tool_name}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const workflowKey = `${row.workflow_name}@${row.workflow_version}`;
    routes.push({
      tenantId: row.tenant_id,
      tenantSlug: row.tenant_slug,
      tool: row.tool_name,
      revision: row.revision,
      title: row.title,
      description: row.description,
      workflowName: row.workflow_name,
      workflowVersion: row.workflow_version,
      workflowKey,
      taskSupport: row.task_support,
      disabled: row.disabled_at !== null,
      servedBy: workers.filter((worker) => worker.workflows.includes(workflowKey)).length,
      inputSchema: row.input_schema,
      definitionRevision: row.definition_revision,
      schedule: scheduleView(row),
      createdAt: new Date(row.created_at).toISOString(),
    });
  }
  return {
    routes,
    tenants: tenants.map((t) => ({ id: t.id, slug: t.slug })),
    knownWorkflows: definitions.map((d) => ({ name: d.name, version: d.version, revision: d.revision, servedBy: d.servedBy })),
  };
}

function scheduleView(row: RouteRow): RouteItem["schedule"] {
  const described = describeSchedule(row, 5);
  return described
    ? {
        cron: described.cron,
        timezone: described.timezone,
        catchUp: described.catchUp,
        paused: described.paused ?? false,
        input: described.input,
        next: described.next,
      }
    : null;
}
