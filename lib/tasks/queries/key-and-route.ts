import { PREPARED, type SqlHandle } from "@runifold/store";
import type postgres from "postgres";
import { type ApiKeyWithTenant, KEY_WITH_TENANT_COLUMNS } from "../../../db/queries/api-keys";
import { ROUTE_ASKS_SQL, ROUTE_COLUMNS, type RouteRow, routeFromJson } from "../../../db/queries/routes";
import { liveTasksSql } from "../active-task-cap";

/**
 * An API key (with what authorization needs of its tenant), the tool a modern `tools/call` names in
 * its `Mcp-Name` header as that tenant routes it, and whether the key is at its cap of live tasks —
 * one round trip where the call made two (the key, then the route beside the count). The route's
 * tenant comes from the key row in the statement itself; the caller uses the route and the count
 * only once the key has been verified. `route` is undefined for a tool the tenant does not route
 * (or has disabled).
 */
export async function readApiKeyWithRoute(
  sql: SqlHandle,
  params: { keyId: string; toolName: string; cap: number },
): Promise<{ key: ApiKeyWithTenant; route: RouteRow | undefined; atCap: boolean } | undefined> {
  const rows = await sql.unsafe<(ApiKeyWithTenant & { route: postgres.Row | null; live_tasks: number })[]>(
    `SELECT ${KEY_WITH_TENANT_COLUMNS},
            to_jsonb(route) AS route, ${liveTasksSql("k.id", "$3")} AS live_tasks
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
     LEFT JOIN LATERAL (
       SELECT ${ROUTE_COLUMNS}, ${ROUTE_ASKS_SQL} FROM routes WHERE tenant_id = k.tenant_id AND tool_name = $2 ORDER BY revision DESC LIMIT 1
     ) route ON true
     WHERE k.id = $1`,
    [params.keyId, params.toolName, params.cap],
    PREPARED,
  );
  const row = rows[0];
  if (!row) return undefined;
  const { route, live_tasks, ...key } = row;
  const routed = route ? routeFromJson(route) : undefined;
  return { key, route: routed && !routed.disabled_at ? routed : undefined, atCap: live_tasks >= params.cap };
}
