import "server-only";
import { definitionsFromRegistry, disableRoute, saveRoute, ZDisableRoute, ZSaveRoute } from "../../admin";
import { webRegistry } from "../../server/registry";
import { operatorAction } from "./operator-action";

// The console's composition root for routes: definitions come from the web tier's registry.
const resolveDefinition = definitionsFromRegistry(webRegistry());

/** Adds a tool or revises it (a new immutable revision), by lib/admin's one route-creation rule. */
export const saveRouteAction = operatorAction(
  ZSaveRoute,
  async (ctx, input) => ({ revision: (await saveRoute({ ...ctx, resolveDefinition }, input)).route.revision }),
  { tenantScoped: true },
);

export const disableRouteAction = operatorAction(ZDisableRoute, disableRoute, { tenantScoped: true });
