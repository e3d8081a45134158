import { listActiveRoutes } from "../../../db/queries/routes";
import type { McpCall, McpDeps } from "../mcp-deps";
import { toolDescriptor } from "../tool-invocation";

/**
 * tools/list: the tenant's enabled routes, each with `execution.taskSupport` (forbidden, optional or
 * required; docs/mcp-legacy.md checklist L2). One page: a tenant has few tools, so no cursor is issued.
 */
export async function toolsList(deps: McpDeps, call: McpCall) {
  const routes = await listActiveRoutes(deps.sql, call.principal.tenantId);
  return { tools: routes.map((route) => toolDescriptor(route, "legacy")) };
}
