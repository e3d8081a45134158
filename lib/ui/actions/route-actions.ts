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
import { scheduleInputFromForm } from "../schedule-input";
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

const ZScheduleForm = ZSetRouteSchedule.extend({
  /** The editor's input controls, raw (lib/ui/schedule-input.ts); they replace `schedule.input`. */
  inputValues: z.record(z.string(), z.union([z.string(), z.boolean(), z.array(z.string())])).optional(),
});

/**
 * Sets or changes a tool's cron schedule, timezone and input (validated with croner and the route's
 * input schema by lib/admin), or clears it. Input posted as form controls is typed by the route's
 * schema first; a field at fault is named in the refusal.
 */
export const setRouteScheduleAction = operatorAction(
  ZScheduleForm,
  async (ctx, { inputValues, ...input }) => {
    const typeInput = inputValues && ((schema: unknown) => scheduleInputFromForm(schema, inputValues));
    return { revision: (await setRouteSchedule(ctx, input, typeInput)).revision };
  },
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
