import { listActiveRoutes } from "../../../db/queries/routes";
import { tenantOffersHandles } from "../../../db/queries/tenants";
import { companionToolDescriptors } from "../handles/companion-tools";
import { isRecord } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { toolDescriptor } from "../tool-invocation";
import { refuseForeignCursor } from "../tools-list-cursor";
import { versionHasTasks } from "./protocol-version";

/**
 * tools/list: the tenant's enabled routes, each with `execution.taskSupport` (forbidden, optional or
 * required; docs/mcp-legacy.md checklist L2), then — for a client that negotiated no tasks, unless
 * the tenant turned handles off — the companion tools of task handles (handles/companion-tools.ts).
 * One page: a tenant has few tools, so no cursor is issued and any cursor sent is refused.
 */
export async function toolsList(deps: McpDeps, call: McpCall, params: Record<string, unknown>) {
  refuseForeignCursor(params);
  const [routes, handles] = await Promise.all([
    listActiveRoutes(deps.sql, call.principal.tenantId),
    tenantOffersHandles(deps.sql, call.principal.tenantId),
  ]);
  const tools = routes.map((route) => toolDescriptor(route, "legacy"));
  return { tools: handles && !negotiatedTasks(call) ? [...tools, ...companionToolDescriptors()] : tools };
}

/**
 * A 2025-11-25 client negotiates tasks by declaring `capabilities.tasks` at initialize (its half of
 * the exchange, basic/utilities/tasks.mdx "Capabilities"). Without a session nothing was declared.
 */
function negotiatedTasks(call: McpCall): boolean {
  const session = call.session;
  return session !== undefined && versionHasTasks(session.protocolVersion) && isRecord(session.clientCapabilities.tasks);
}
