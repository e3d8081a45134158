import { isUuid, PREPARED, type SqlHandle } from "@runifold/store";
import type postgres from "postgres";
import { type ApiKeyWithTenant, KEY_WITH_TENANT_COLUMNS } from "../../../db/queries/api-keys";
import { ROUTE_ASKS_SQL, ROUTE_COLUMNS, type RouteRow, routeFromJson } from "../../../db/queries/routes";
import { liveTasksSql } from "../active-task-cap";
import { TASK_RECORD_COLUMNS, type TaskRecord, toTaskRecord } from "./task-record";

/** A live legacy session as the combined read finds it; `needsSlide`: its idle expiry is due to be moved on. */
export type SessionAhead = {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  needsSlide: boolean;
};

/**
 * The legacy era's read-ahead (2025-11-25 requests carry no routing headers, so the gate reads the
 * body it was handed): an API key with its tenant, the key's live session named by Mcp-Session-Id,
 * and — for tasks/get — the named task of the key's tenant, in one round trip instead of three (key,
 * session, task). Read-only: the session's expiry is slid by touchMcpSession afterwards, and only
 * when `needsSlide` (once per slide period) and the key has been verified, so an unverified caller
 * never extends a session. The session and task belong to the key row's tenant and key in the
 * statement itself, never to anything the request says; each is undefined when unknown, expired or
 * another credential's. Serves the hot path of a polling legacy client: mcp_sessions' primary key,
 * api_keys' primary key, runs' primary key.
 */
export async function readApiKeyWithSession(
  sql: SqlHandle,
  params: {
    keyId: string;
    sessionSha256: string;
    taskId?: string;
    toolName?: string;
    cap: number;
    ttlMs: number;
    slideEveryMs: number;
  },
): Promise<
  | {
      key: ApiKeyWithTenant;
      session: SessionAhead | undefined;
      task: TaskRecord | undefined;
      route: RouteRow | undefined;
      atCap: boolean;
    }
  | undefined
> {
  const taskId = params.taskId !== undefined && isUuid(params.taskId) ? params.taskId : null;
  const rows = await sql.unsafe<
    (ApiKeyWithTenant & {
      session: postgres.Row | null;
      task: postgres.Row | null;
      route: postgres.Row | null;
      live_tasks: number;
    })[]
  >(
    `SELECT ${KEY_WITH_TENANT_COLUMNS},
            (SELECT jsonb_build_object(
                      'protocolVersion', s.protocol_version,
                      'clientCapabilities', s.client_capabilities,
                      'needsSlide', s.expires_at < now() + ($4::float8 - $5::float8) * interval '1 millisecond')
               FROM mcp_sessions s
              WHERE s.id_sha256 = $2 AND s.tenant_id = k.tenant_id AND s.key_id = k.id AND s.expires_at > now()) AS session,
            to_jsonb(task) AS task,
            to_jsonb(route) AS route,
            CASE WHEN $6::text IS NULL THEN 0 ELSE ${liveTasksSql("k.id", "$7")} END AS live_tasks
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
     LEFT JOIN LATERAL (
       SELECT ${TASK_RECORD_COLUMNS} FROM runs r WHERE r.id = $3::uuid AND r.tenant_id = k.tenant_id
     ) task ON true
     LEFT JOIN LATERAL (
       SELECT ${ROUTE_COLUMNS}, ${ROUTE_ASKS_SQL} FROM routes
        WHERE tenant_id = k.tenant_id AND tool_name = $6::text ORDER BY revision DESC LIMIT 1
     ) route ON true
     WHERE k.id = $1`,
    [params.keyId, params.sessionSha256, taskId, params.ttlMs, params.slideEveryMs, params.toolName ?? null, params.cap],
    PREPARED,
  );
  const row = rows[0];
  if (!row) return undefined;
  const { session, task, route, live_tasks, ...key } = row;
  const routed = route ? routeFromJson(route) : undefined;
  return {
    key,
    session: session ? (session as unknown as SessionAhead) : undefined,
    task: task ? toTaskRecord(task) : undefined,
    route: routed && !routed.disabled_at ? routed : undefined,
    atCap: live_tasks >= params.cap,
  };
}
