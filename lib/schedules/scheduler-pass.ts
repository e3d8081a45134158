import type { Logger } from "@runifold/sdk";
import { coerceError, createRun } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type postgres from "postgres";
import { validateArguments } from "../tasks";
import { dueFireTime, parseSchedule } from "./fire-times";

/** The scheduler's transaction-scoped advisory lock, derived from a readable name (see pg_locks). */
const LOCK_KEY_SQL = "hashtextextended('runifold.scheduler', 0)";

/** A fire time's idempotency key holds a week: far longer than any pass could be retried. */
const FIRE_KEY_TTL_MS = 7 * 24 * 60 * 60_000;

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
  last_fire_at: Date | null;
  db_now: Date;
};

export type SchedulerPass =
  | { status: "skipped" }
  | { status: "completed"; fired: { tool: string; fireAt: string; runId: string }[] };

/**
 * One scheduler pass, fenced: the whole pass is one transaction holding a transaction-scoped
 * advisory lock, so one instance acts per pass and a scheduler whose connection died can commit
 * nothing. Each run is created with the idempotency key `schedule:<fire time>` in the tool's
 * scope, so even two passes that both acted (the lock lost between them) never double-fire; the
 * cursor (schedule_cursors) moves in the same transaction as the runs it fired.
 */
export async function runSchedulerPass(
  sql: postgres.Sql,
  options: { logger: Logger; graceMs: number; now?: Date },
): Promise<SchedulerPass> {
  return (await sql.begin(async (tx) => {
    const [lock] = await tx.unsafe<{ locked: boolean }[]>(`SELECT pg_try_advisory_xact_lock(${LOCK_KEY_SQL}) AS locked`);
    if (!lock?.locked) return { status: "skipped" as const };
    const fired: { tool: string; fireAt: string; runId: string }[] = [];
    for (const route of await scheduledRoutes(tx, options.now)) {
      try {
        const firing = await fireRoute(tx, route, options.graceMs);
        if (firing) fired.push(firing);
      } catch (error) {
        // One bad schedule (an invalid cron saved by hand, input its workflow refuses) never stops the others.
        options.logger.warn("schedule skipped", {
          tool: route.tool_name,
          tenantId: route.tenant_id,
          error: coerceError(error).message,
        });
      }
    }
    return { status: "completed" as const, fired };
  })) as SchedulerPass;
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
  // Paused: the cursor still moves (below), so a resume goes on from its own time and never fires the
  // fire times of the pause, whatever the catch-up policy.
  if (route.schedule_paused) due.fire = undefined;
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
      idempotency: { key: `schedule:${fireAt}`, scope: `tool:${route.tool_name}`, ttlMs: FIRE_KEY_TTL_MS },
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

/** The current revision of every enabled, scheduled tool, with its cursor and the database's now. */
async function scheduledRoutes(tx: SqlHandle, now?: Date): Promise<ScheduledRoute[]> {
  return tx.unsafe<ScheduledRoute[]>(
    `SELECT latest.*, c.last_fire_at, coalesce($1::timestamptz, now()) AS db_now FROM (
       SELECT DISTINCT ON (tenant_id, tool_name) id, tenant_id, tool_name, workflow_name, workflow_version, input_schema,
              schedule_cron, schedule_timezone, schedule_catch_up, schedule_input, schedule_paused, disabled_at
       FROM routes ORDER BY tenant_id, tool_name, revision DESC
     ) latest
     LEFT JOIN schedule_cursors c ON c.tenant_id = latest.tenant_id AND c.tool_name = latest.tool_name
     WHERE latest.disabled_at IS NULL AND latest.schedule_cron IS NOT NULL`,
    [now ?? null],
  );
}
