import { listActiveRoutes } from "../../../db/queries/routes";
import { tenantOffersHandles } from "../../../db/queries/tenants";
import { companionToolDescriptors } from "../handles/companion-tools";
import type { McpCall, McpDeps } from "../mcp-deps";
import { toolDescriptor } from "../tool-invocation";
import { refuseForeignCursor } from "../tools-list-cursor";
import type { ModernEnvelope } from "./envelope";

/**
 * tools/list: the tenant's enabled routes, then — for a request that did not declare the tasks
 * extension, unless the tenant turned handles off — the companion tools of task handles
 * (handles/companion-tools.ts). Which calls become tasks is the server's decision (no taskSupport). A
 * cacheable result MUST carry caching hints (2026-07-28 server/utilities/caching.mdx "Cacheable
 * Results"; `ListToolsResult extends CacheableResult`, both fields required): the tool set differs
 * per tenant (and per the request's capabilities), so `private`, and `ttlMs: 0` because an operator
 * may add or disable a route at any time (clients revalidate rather than serve a stale list).
 */
export async function toolsList(deps: McpDeps, call: McpCall, params: Record<string, unknown>, envelope: ModernEnvelope) {
  refuseForeignCursor(params);
  const [routes, handles] = await Promise.all([
    listActiveRoutes(deps.sql, call.principal.tenantId),
    envelope.declaresTasks ? false : tenantOffersHandles(deps.sql, call.principal.tenantId),
  ]);
  const tools = routes.map((route) => toolDescriptor(route, "modern"));
  return {
    resultType: "complete",
    tools: handles ? [...tools, ...companionToolDescriptors()] : tools,
    ttlMs: 0,
    cacheScope: "private",
  };
}
