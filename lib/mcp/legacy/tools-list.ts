import { listActiveRoutes } from "../../../db/queries/routes";
import type { McpCall, McpDeps } from "../mcp-deps";
import { toolDescriptor } from "../tool-invocation";
import { refuseForeignCursor } from "../tools-list-cursor";

/**
 * tools/list: the tenant's enabled routes, each with `execution.taskSupport` (forbidden, optional or
 * required; docs/mcp-legacy.md checklist L2). One page: a tenant has few tools, so no cursor is issued
 * and any cursor sent is refused.
 */
export async function toolsList(deps: McpDeps, call: McpCall, params: Record<string, unknown>) {
  refuseForeignCursor(params);
  const routes = await listActiveRoutes(deps.sql, call.principal.tenantId);
  return { tools: routes.map((route) => toolDescriptor(route, "legacy")) };
}
