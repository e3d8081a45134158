import type { Logger } from "@runifold/sdk";
import { coerceError, createRun } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type postgres from "postgres";
import { validateArguments } from "../tasks";
import { dueFireTime, parseSchedule } from "./fire-times";

/**
 * One schedule's transaction-scoped advisory lock, derived from a readable name (see pg_locks): the
 * scheduler instance that holds it is the one that fires that schedule now.
 */
const LOCK_KEY_SQL = "hashtextextended('runifold.scheduler:' || $1::text || ':' || $2::text, 0)";

/** A fire time's idempotency key holds a week: far longer than any pass could be retried. */
const FIRE_KEY_TTL_MS = 7 * 24 * 60 * 60_000;

type ScheduledTool = { tenant_id: string; tool_name: string };

type ScheduledRoute = {
  id: string;
  tenant_id: string;
  tool_name: string;
  workflow_name: string;
  workflow_version: number;
  input_schema: Record<string, unknown>;
  schedule_cron: string;
  schedule_timezone: string | null;
  schedule_catch_up: string;
  schedule_input: Record<string, unknown> | null;
  schedule_paused: boolean;
  tenant_disabled: boolean;
  last_fire_at: Date | null;
  db_now: Date;
};

export type SchedulerPass = { status: "completed"; fired: { tool: string; fireAt: string; runId: string }[] };

/**
 * One scheduler pass. Each schedule is fired in a transaction of its own, fenced by that
 * schedule's transaction-scoped advisory lock: one instance acts on a schedule at a time, one whose
 * connection died can commit nothing, and the route and its cursor are read again under the lock,
 * so an instance that comes second sees the fire the first committed. One schedule never waits for
 * or undoes another (review 3, E9: a pass was one transaction over every tenant, 6.2 s for 2,000
 * fires, and the first SQL error in it aborted every later schedule's fire). Each run is created
 * with its fire time as idempotency key in the scope `schedule:<tool>`, which no caller can name (a
 * caller's keys are scoped to the tool and its credential, lib/tasks/create-task.ts), so even two
 * instances that both acted never double-fire; the cursor (schedule_cursors) moves in the same
 * transaction as the run it fired.
 */
export async function runSchedulerPass(
  sql: postgres.Sql,
  options: { logger: Logger; graceMs: number; now?: Date },
): Promise<SchedulerPass> {
  const fired: SchedulerPass["fired"] = [];
  for (const tool of await scheduledTools(sql)) {
    try {
      const firing = await sql.begin(async (tx) => {
        const [lock] = await tx.unsafe<{ locked: boolean }[]>(`SELECT pg_try_advisory_xact_lock(${LOCK_KEY_SQL}) AS locked`, [
          tool.tenant_id,
          tool.tool_name,
        ]);
        if (!lock?.locked) return undefined; // another instance is firing it now
        const route = await scheduledRoute(tx, tool, options.now);
        return route ? fireRoute(tx, route, options.graceMs) : undefined;
      });
      if (firing) fired.push(firing);
    } catch (error) {
      // One bad schedule (an invalid cron saved by hand, input its workflow refuses) never stops the others.
      options.logger.warn("schedule skipped", {
        tool: tool.tool_name,
        tenantId: tool.tenant_id,
        error: coerceError(error).message,
      });
    }
  }
  return { status: "completed", fired };
}

async function fireRoute(tx: SqlHandle, route: ScheduledRoute, graceMs: number) {
  const now = new Date(route.db_now);
  const schedule = parseSchedule({
    cron: route.schedule_cron,
    timezone: route.schedule_timezone,
    catchUp: route.schedule_catch_up,
  });
  // A schedule seen for the first time starts from now: it never fires for times before it existed.
  const due = route.last_fire_at
    ? dueFireTime(schedule, new Date(route.last_fire_at), now, graceMs)
    : { fire: undefined, cursor: now };
  if (!due) return undefined;
  // Paused, or its tenant disabled (whose runs no worker claims: they would pile up and all start at
  // once when it is enabled again): the cursor still moves (below), so a resume goes on from its own
  // time and never fires the fire times it missed, whatever the catch-up policy.
  if (route.schedule_paused || route.tenant_disabled) due.fire = undefined;
  let firing: { tool: string; fireAt: string; runId: string } | undefined;
  if (due.fire) {
    const checked = validateArguments(route.tool_name, route.input_schema, route.schedule_input ?? {});
    if (!checked.ok) throw new Error(checked.message);
    const fireAt = due.fire.toISOString();
    const run = await createRun(tx, {
      tenantId: route.tenant_id,
      routeId: route.id,
      workflowName: route.workflow_name,
      workflowVersion: route.workflow_version,
      input: checked.value,
      origin: "schedule",
      idempotency: { key: fireAt, scope: `schedule:${route.tool_name}`, ttlMs: FIRE_KEY_TTL_MS },
    });
    firing = { tool: route.tool_name, fireAt, runId: run.id };
  }
  await tx.unsafe(
    `INSERT INTO schedule_cursors (tenant_id, tool_name, last_fire_at) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id, tool_name) DO UPDATE SET last_fire_at = EXCLUDED.last_fire_at`,
    [route.tenant_id, route.tool_name, due.cursor],
  );
  return firing;
}

/** The tools whose current revision is enabled and scheduled: what a pass goes through, one by one. */
async function scheduledTools(sql: SqlHandle): Promise<ScheduledTool[]> {
  return sql.unsafe<ScheduledTool[]>(
    `SELECT tenant_id, tool_name FROM (
       SELECT DISTINCT ON (tenant_id, tool_name) tenant_id, tool_name, schedule_cron, disabled_at
       FROM routes ORDER BY tenant_id, tool_name, revision DESC
     ) latest
     WHERE latest.disabled_at IS NULL AND latest.schedule_cron IS NOT NULL`,
  );
}

/** One tool's current revision, if still enabled and scheduled, with its cursor, its tenant's state and the database's now. */
async function scheduledRoute(tx: SqlHandle, tool: ScheduledTool, now?: Date): Promise<ScheduledRoute | undefined> {
  const rows = await tx.unsafe<ScheduledRoute[]>(
    `SELECT latest.*, t.disabled_at IS NOT NULL AS tenant_disabled, c.last_fire_at, coalesce($3::timestamptz, now()) AS db_now
     FROM (
       SELECT id, tenant_id, tool_name, workflow_name, workflow_version, input_schema, schedule_cron, schedule_timezone,
              schedule_catch_up, schedule_input, schedule_paused, disabled_at
       FROM routes WHERE tenant_id = $1 AND tool_name = $2 ORDER BY revision DESC LIMIT 1
     ) latest
     JOIN tenants t ON t.id = latest.tenant_id
     LEFT JOIN schedule_cursors c ON c.tenant_id = latest.tenant_id AND c.tool_name = latest.tool_name
     WHERE latest.disabled_at IS NULL AND latest.schedule_cron IS NOT NULL`,
    [tool.tenant_id, tool.tool_name, now ?? null],
  );
  return rows[0];
}
