import "server-only";
import { definitionsFromStore, disableRoute, saveRoute, ZDisableRoute, ZSaveRoute } from "../../admin";
import { operatorAction } from "./operator-action";

// The console binds routes to the definitions workers published to the store (never workflow code).

/** Adds a tool or revises it (a new immutable revision), by lib/admin's one route-creation rule. */
export const saveRouteAction = operatorAction(
  ZSaveRoute,
  async (ctx, input) => ({
    revision: (await saveRoute({ ...ctx, resolveDefinition: definitionsFromStore(ctx.sql) }, input)).route.revision,
  }),
  { tenantScoped: true },
);

export const disableRouteAction = operatorAction(ZDisableRoute, disableRoute, { tenantScoped: true });
