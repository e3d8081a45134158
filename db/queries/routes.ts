import { jsonParam, PREPARED, type SqlHandle } from "@runifold/store";

export type TaskSupport = "forbidden" | "optional" | "required";

/**
 * How long an ordinary tools/call (a client that negotiated no tasks) waits for its run before it
 * answers a task handle: a per-route setting (`runifold routes add --sync-deadline-ms`), 30 s unless
 * set. Clients that reset their timeout on progress (SDK v1 `resetTimeoutOnProgress`) wait as long
 * as the run reports progress, so a route may wait longer — up to the maximum, which bounds how long
 * one request holds a connection and one of its credential's wait slots: 15 minutes.
 */
export const DEFAULT_SYNC_DEADLINE_MS = 30_000;
export const MAX_SYNC_DEADLINE_MS = 900_000;

export type RouteRow = {
  id: string;
  tenant_id: string;
  tool_name: string;
  revision: number;
  workflow_name: string;
  workflow_version: number;
  title: string | null;
  description: string;
  input_schema: Record<string, unknown>;
  /** The published definition revision bound (null: bound unpublished) and its preflight requests. */
  definition_revision: number | null;
  preflight: Record<string, unknown> | null;
  task_support: TaskSupport;
  max_ttl_ms: number | null;
  sync_deadline_ms: number;
  disabled_at: Date | null;
  created_at: Date;
  /** A cron schedule on which the scheduler starts this route's workflow (lib/schedules), or null. */
  schedule_cron: string | null;
  schedule_timezone: string | null;
  schedule_catch_up: "skip" | "one";
  schedule_input: Record<string, unknown> | null;
  schedule_paused: boolean;
  /**
   * What the bound definition declares it may ask, `{input, approval}` (workflow_definitions.asks),
   * read with the route by the reads that serve tools/call and tools/list (ROUTE_ASKS_SQL); null: not
   * declared or not published (it may ask anything); absent: not read.
   */
  asks?: { input: boolean; approval: boolean } | null;
};

/** A route revision's schedule (null: none). */
export type RouteSchedule = {
  cron: string;
  timezone: string;
  catchUp: "skip" | "one";
  input: Record<string, unknown>;
  /** Paused: kept, shown, fires nothing (absent: not paused). */
  paused?: boolean;
};

export function scheduleOf(route: RouteRow): RouteSchedule | null {
  if (!route.schedule_cron) return null;
  return {
    cron: route.schedule_cron,
    timezone: route.schedule_timezone ?? "UTC",
    catchUp: route.schedule_catch_up,
    input: route.schedule_input ?? {},
    paused: route.schedule_paused,
  };
}

/** A route row's columns, for `SELECT … FROM routes` (exported for reads that join a route in: lib/tasks key-and-route). */
export const ROUTE_COLUMNS = `id, tenant_id, tool_name, revision, workflow_name, workflow_version, title, description, input_schema,
  definition_revision, preflight, task_support, max_ttl_ms::float8 AS max_ttl_ms, sync_deadline_ms, disabled_at, created_at,
  schedule_cron, schedule_timezone, schedule_catch_up, schedule_input, schedule_paused`;

/**
 * The bound definition's `asks`, for a `SELECT … FROM routes` (unaliased): read with the route, never
 * copied onto it, so what a worker publishes is what gating sees (primary-key probe).
 */
export const ROUTE_ASKS_SQL =
  "(SELECT d.asks FROM workflow_definitions d WHERE d.name = routes.workflow_name AND d.version = routes.workflow_version) AS asks";

export type NewRouteRevision = {
  tenantId: string;
  toolName: string;
  workflowName: string;
  workflowVersion: number;
  title?: string | null;
  description?: string;
  inputSchema: Record<string, unknown>;
  definitionRevision?: number | null;
  preflight?: Record<string, unknown> | null;
  taskSupport: TaskSupport;
  maxTtlMs?: number | null;
  syncDeadlineMs?: number;
  disabled?: boolean;
  schedule?: RouteSchedule | null;
};

/**
 * Appends a revision (routes are immutable). The next revision number is computed in the same
 * statement; two concurrent edits of one tool collide on the unique index instead of overwriting.
 */
export async function insertRouteRevision(sql: SqlHandle, route: NewRouteRevision): Promise<RouteRow> {
  const rows = await sql.unsafe<RouteRow[]>(
    `INSERT INTO routes (tenant_id, tool_name, revision, workflow_name, workflow_version, title, description,
                         input_schema, task_support, max_ttl_ms, sync_deadline_ms, disabled_at, definition_revision, preflight,
                         schedule_cron, schedule_timezone, schedule_catch_up, schedule_input, schedule_paused)
     SELECT $1, $2, coalesce(max(revision), 0) + 1, $3, $4, $5, $6, $7::text::jsonb, $8, $9, $10, CASE WHEN $11 THEN now() END,
            $12, $13::text::jsonb, $14, $15, $16, $17::text::jsonb, $18
     FROM routes WHERE tenant_id = $1 AND tool_name = $2
     RETURNING ${ROUTE_COLUMNS}`,
    [
      route.tenantId,
      route.toolName,
      route.workflowName,
      route.workflowVersion,
      route.title ?? null,
      route.description ?? "",
      jsonParam(route.inputSchema),
      route.taskSupport,
      route.maxTtlMs ?? null,
      route.syncDeadlineMs ?? DEFAULT_SYNC_DEADLINE_MS,
      route.disabled ?? false,
      route.definitionRevision ?? null,
      route.preflight ? jsonParam(route.preflight) : null,
      route.schedule?.cron ?? null,
      route.schedule?.timezone ?? null,
      route.schedule?.catchUp ?? "skip",
      route.schedule ? jsonParam(route.schedule.input) : null,
      route.schedule?.paused ?? false,
    ],
  );
  return rows[0] as RouteRow;
}

/** A route row that travelled as JSON (`to_jsonb`): its timestamps back to Dates. */
export function routeFromJson(row: Record<string, unknown>): RouteRow {
  const route = row as unknown as RouteRow & { created_at: string; disabled_at: string | null };
  return {
    ...route,
    created_at: new Date(route.created_at),
    disabled_at: route.disabled_at === null ? null : new Date(route.disabled_at),
  };
}

/** The current revision of every enabled tool of a tenant (the latest revision decides). */
export async function listActiveRoutes(sql: SqlHandle, tenantId: string): Promise<RouteRow[]> {
  return sql.unsafe<RouteRow[]>(
    `SELECT * FROM (
       SELECT DISTINCT ON (tool_name) ${ROUTE_COLUMNS}, ${ROUTE_ASKS_SQL} FROM routes WHERE tenant_id = $1 ORDER BY tool_name, revision DESC
     ) latest WHERE disabled_at IS NULL ORDER BY tool_name`,
    [tenantId],
  );
}

export async function findActiveRoute(sql: SqlHandle, tenantId: string, toolName: string): Promise<RouteRow | undefined> {
  const rows = await sql.unsafe<RouteRow[]>(
    `SELECT ${ROUTE_COLUMNS}, ${ROUTE_ASKS_SQL} FROM routes WHERE tenant_id = $1 AND tool_name = $2 ORDER BY revision DESC LIMIT 1`,
    [tenantId, toolName],
    PREPARED, // every tools/call runs this: parse and plan once per connection
  );
  const route = rows[0];
  return route && !route.disabled_at ? route : undefined;
}

/** The newest revision of a tool, enabled or not. */
export async function findLatestRoute(sql: SqlHandle, tenantId: string, toolName: string): Promise<RouteRow | undefined> {
  const rows = await sql.unsafe<RouteRow[]>(
    `SELECT ${ROUTE_COLUMNS} FROM routes WHERE tenant_id = $1 AND tool_name = $2 ORDER BY revision DESC LIMIT 1`,
    [tenantId, toolName],
  );
  return rows[0];
}

/** Every revision (for the CLI and UI), newest first per tool. */
export async function listRouteRevisions(sql: SqlHandle, tenantId?: string): Promise<(RouteRow & { tenant_slug: string })[]> {
  return sql.unsafe(
    `SELECT ${ROUTE_COLUMNS.replace(/(^|,\s*)(\w+)/g, "$1r.$2")}, t.slug AS tenant_slug
     FROM routes r JOIN tenants t ON t.id = r.tenant_id
     WHERE ($1::uuid IS NULL OR r.tenant_id = $1::uuid)
     ORDER BY t.slug, r.tool_name, r.revision DESC`,
    [tenantId ?? null],
  );
}

/**
 * Appends a revision that copies `current` with `changes` applied (routes are immutable, and runs
 * keep pointing at the revision they were created under).
 */
export async function appendRevisedCopy(
  sql: SqlHandle,
  current: RouteRow,
  changes: Partial<Pick<NewRouteRevision, "disabled" | "schedule">>,
): Promise<RouteRow> {
  return insertRouteRevision(sql, {
    tenantId: current.tenant_id,
    toolName: current.tool_name,
    workflowName: current.workflow_name,
    workflowVersion: current.workflow_version,
    title: current.title,
    description: current.description,
    inputSchema: current.input_schema,
    definitionRevision: current.definition_revision,
    preflight: current.preflight,
    schedule: scheduleOf(current),
    taskSupport: current.task_support,
    maxTtlMs: current.max_ttl_ms,
    syncDeadlineMs: current.sync_deadline_ms,
    disabled: current.disabled_at !== null,
    ...changes,
  });
}

/** Disables a tool by appending a disabled copy of its current revision. Undefined when the tool is not active. */
export async function disableRoute(sql: SqlHandle, tenantId: string, toolName: string): Promise<RouteRow | undefined> {
  const current = await findActiveRoute(sql, tenantId, toolName);
  if (!current) return undefined;
  return appendRevisedCopy(sql, current, { disabled: true });
}
