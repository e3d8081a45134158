import { z } from "zod";
import { appendRevisedCopy, findLatestRoute, type RouteRow, type RouteSchedule, scheduleOf } from "../../db/queries/routes";
import { findTenantById } from "../../db/queries/tenants";
import { AppError } from "../errors";
import { CATCH_UP_POLICIES, nextFireTimes, parseSchedule } from "../schedules";
import { validateArguments } from "../tasks";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { conflictOnDuplicate } from "./conflicts";
import { parseInput } from "./parse-input";
import { idRule, toolNameRule } from "./rules";

export const ZRouteSchedule = z.object({
  cron: z.string().trim().min(1, "A cron expression such as 0 9 * * 1-5").max(200),
  timezone: z.string().trim().max(100).optional(),
  catchUp: z.enum(CATCH_UP_POLICIES as ["skip", "one"]).optional(),
  /** The tool arguments each scheduled run starts with; checked against the route's input schema. */
  input: z.record(z.string(), z.unknown()).optional(),
});

export const ZSetRouteSchedule = z.object({
  tenantId: idRule,
  toolName: toolNameRule,
  /** null clears the schedule. */
  schedule: ZRouteSchedule.nullable(),
});

/**
 * The schedule a route revision may carry, checked as the scheduler will use it: a cron croner
 * parses in a real timezone, and input the route's input schema accepts (a schedule whose runs
 * would all be refused is refused now instead).
 */
export function checkSchedule(
  route: Pick<RouteRow, "tool_name" | "input_schema">,
  input: z.infer<typeof ZRouteSchedule>,
): RouteSchedule {
  let parsed: ReturnType<typeof parseSchedule>;
  try {
    parsed = parseSchedule({ cron: input.cron, timezone: input.timezone, catchUp: input.catchUp });
  } catch (error) {
    throw new AppError("bad_request", (error as Error).message);
  }
  const args = validateArguments(route.tool_name, route.input_schema, input.input ?? {});
  if (!args.ok) throw new AppError("bad_request", `schedule input: ${args.message}`);
  return { ...parsed, input: input.input ?? {} };
}

/** Turns what a form posted into the runs' input, typed by the route's input schema (the console's editor). */
export type ScheduleInputTyper = (
  inputSchema: unknown,
) => { ok: true; input: Record<string, unknown> } | { ok: false; message: string };

/**
 * Sets or clears a tool's schedule as a new immutable revision copying the current one (runs keep
 * the revision they started under). One fenced scheduler fires it (lib/schedules). `typeInput`,
 * when given, replaces `schedule.input` with what it makes of the route's schema (one read of the route).
 */
export async function setRouteSchedule(
  ctx: AdminContext,
  input: z.input<typeof ZSetRouteSchedule>,
  typeInput?: ScheduleInputTyper,
): Promise<RouteRow> {
  const params = parseInput(ZSetRouteSchedule, input);
  const tenant = await findTenantById(ctx.sql, params.tenantId);
  if (!tenant) throw new AppError("not_found");
  const current = await findLatestRoute(ctx.sql, tenant.id, params.toolName);
  if (!current) throw new AppError("not_found", `No tool "${params.toolName}" for tenant ${tenant.slug}`);
  let wanted = params.schedule;
  if (wanted && typeInput) {
    const typed = typeInput(current.input_schema);
    if (!typed.ok) throw new AppError("bad_request", `schedule input: ${typed.message}`);
    wanted = { ...wanted, input: typed.input };
  }
  const schedule = wanted ? checkSchedule(current, wanted) : null;
  const route = await conflictOnDuplicate(
    () => appendRevisedCopy(ctx.sql, current, { schedule }),
    "Someone else revised this tool at the same moment; try again.",
  );
  await audit(ctx, schedule ? "route.schedule.set" : "route.schedule.clear", {
    tenantId: tenant.id,
    tool: route.tool_name,
    revision: route.revision,
    ...(schedule ? { cron: schedule.cron, timezone: schedule.timezone, catchUp: schedule.catchUp } : {}),
  });
  return route;
}

export const ZSetRouteSchedulePaused = z.object({ tenantId: idRule, toolName: toolNameRule, paused: z.boolean() });

/**
 * Pauses or resumes a tool's schedule: a new revision with the same cron and `paused` flipped. A
 * paused schedule fires nothing, and resuming does not fire what the pause skipped (lib/schedules).
 */
export async function setRouteSchedulePaused(
  ctx: AdminContext,
  input: z.input<typeof ZSetRouteSchedulePaused>,
): Promise<RouteRow> {
  const params = parseInput(ZSetRouteSchedulePaused, input);
  const tenant = await findTenantById(ctx.sql, params.tenantId);
  if (!tenant) throw new AppError("not_found");
  const current = await findLatestRoute(ctx.sql, tenant.id, params.toolName);
  if (!current) throw new AppError("not_found", `No tool "${params.toolName}" for tenant ${tenant.slug}`);
  const schedule = scheduleOf(current);
  if (!schedule)
    throw new AppError("bad_request", `Tool "${params.toolName}" has no schedule to ${params.paused ? "pause" : "resume"}.`);
  const route = await conflictOnDuplicate(
    () => appendRevisedCopy(ctx.sql, current, { schedule: { ...schedule, paused: params.paused } }),
    "Someone else revised this tool at the same moment; try again.",
  );
  await audit(ctx, params.paused ? "route.schedule.pause" : "route.schedule.resume", {
    tenantId: tenant.id,
    tool: route.tool_name,
    revision: route.revision,
  });
  return route;
}

/** What the route page and `routes schedule --preview` show: the schedule and its next fire times. */
export function describeSchedule(route: RouteRow, count = 5, from = new Date()): (RouteSchedule & { next: string[] }) | null {
  const schedule = scheduleOf(route);
  if (!schedule) return null;
  try {
    return { ...schedule, next: nextFireTimes(schedule, count, from).map((at) => at.toISOString()) };
  } catch {
    return { ...schedule, next: [] };
  }
}
