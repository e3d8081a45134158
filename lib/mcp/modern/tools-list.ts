import { listActiveRoutes } from "../../../db/queries/routes";
import type { McpCall, McpDeps } from "../mcp-deps";
import { toolDescriptor } from "../tool-invocation";

/** tools/list: the tenant's enabled routes. Which calls become tasks is the server's decision (no taskSupport). */
export async function toolsList(deps: McpDeps, call: McpCall) {
  const routes = await listActiveRoutes(deps.sql, call.principal.tenantId);
  return { resultType: "complete", tools: routes.map((route) => toolDescriptor(route, "modern")) };
}
