import { listActiveRoutes } from "../../../db/queries/routes";
import type { McpCall, McpDeps } from "../mcp-deps";
import { toolDescriptor } from "../tool-invocation";
import { refuseForeignCursor } from "../tools-list-cursor";

/**
 * tools/list: the tenant's enabled routes. Which calls become tasks is the server's decision (no
 * taskSupport). A cacheable result MUST carry caching hints (2026-07-28 server/utilities/caching.mdx
 * "Cacheable Results"; `ListToolsResult extends CacheableResult`, both fields required): the tool set
 * differs per tenant, so `private`, and `ttlMs: 0` because an operator may add or disable a route at
 * any time (clients revalidate rather than serve a stale list).
 */
export async function toolsList(deps: McpDeps, call: McpCall, params: Record<string, unknown>) {
  refuseForeignCursor(params);
  const routes = await listActiveRoutes(deps.sql, call.principal.tenantId);
  return {
    resultType: "complete",
    tools: routes.map((route) => toolDescriptor(route, "modern")),
    ttlMs: 0,
    cacheScope: "private",
  };
}
