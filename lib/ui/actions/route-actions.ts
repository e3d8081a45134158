import "server-only";
import { z } from "zod";
import {
  definitionsFromStore,
  disableRoute,
  saveRoute,
  setRouteSchedule,
  setRouteSchedulePaused,
  ZDisableRoute,
  ZSaveRoute,
  ZSetRouteSchedule,
  ZSetRouteSchedulePaused,
} from "../../admin";
import { AppError } from "../../errors";
import { nextFireTimes, parseSchedule } from "../../schedules";
import { operatorAction } from "./operator-action";

// The console binds routes to the definitions workers published to the store (never workflow code).

/**
 * Adds a tool or revises it (a new immutable revision), by lib/admin's one route-creation rule.
 * Binding a route decides what MCP clients can run: it needs a recent authentication (ASVS 3.7.1).
 */
export const saveRouteAction = operatorAction(
  ZSaveRoute,
  async (ctx, input) => ({
    revision: (await saveRoute({ ...ctx, resolveDefinition: definitionsFromStore(ctx.sql) }, input)).route.revision,
  }),
  { tenantScoped: true, recentAuth: true },
);

const ZPreviewSchedule = z.object({ cron: z.string().trim().min(1).max(200), timezone: z.string().trim().max(100).optional() });

export const disableRouteAction = operatorAction(ZDisableRoute, disableRoute, { tenantScoped: true });

/** Sets or changes a tool's cron schedule and timezone (validated with croner by lib/admin), or clears it. */
export const setRouteScheduleAction = operatorAction(
  ZSetRouteSchedule,
  async (ctx, input) => ({ revision: (await setRouteSchedule(ctx, input)).revision }),
  { tenantScoped: true },
);

export const setRouteSchedulePausedAction = operatorAction(
  ZSetRouteSchedulePaused,
  async (ctx, input) => ({ revision: (await setRouteSchedulePaused(ctx, input)).revision }),
  { tenantScoped: true },
);

/** The next 5 fire times of a cron expression the operator is typing, or why it is refused (nothing is saved). */
export const previewScheduleAction = operatorAction(ZPreviewSchedule, async (_ctx, input) => {
  try {
    const schedule = parseSchedule({ cron: input.cron, timezone: input.timezone });
    return { next: nextFireTimes(schedule, 5).map((at) => at.toISOString()) };
  } catch (error) {
    throw new AppError("bad_request", (error as Error).message);
  }
});
