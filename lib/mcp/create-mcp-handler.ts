import type { Logger } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type postgres from "postgres";
import type { CappedBody } from "../http-api";
import { authenticate, type GateConfig, type GateOAuth } from "./auth-gate";
import type { CredentialLimits } from "./credential-budgets";
import { handleMcpPost, isJsonRequest, readMcpBody } from "./handle-mcp-request";
import { jsonResponse } from "./json-rpc";
import { legacyReadAhead } from "./legacy/read-ahead";
import { SESSION_HEADER } from "./legacy/session";

/**
 * POST /api/mcp. `body`: the request's body when a wrapper read it already (readMcpBody, the same
 * cap), so it is not read twice; otherwise the handler reads it.
 */
export type McpPostHandler = (request: Request, body?: CappedBody) => Promise<Response>;

/** Everything the MCP endpoint needs from its process, passed in: no env reads, no singletons. */
export type McpHandlerDeps = {
  /** The pool, resolved per request (the web process creates it lazily on first use). */
  sql: () => postgres.Sql;
  logger: Logger;
  /** Origins allowed besides same-origin (RUNIFOLD_ALLOWED_ORIGINS plus the public URL's origin). */
  allowedOrigins: string[];
  /** The loopback-only test tenant (RUNIFOLD_INSECURE_LOOPBACK_TENANT); refused off loopback. */
  insecureLoopbackTenant?: string;
  /** The address this server listens on (HOST). */
  host: string;
  /** OAuth on: access tokens for this resource are accepted and challenges name its metadata (lib/mcp/auth-gate.ts). */
  oauth?: GateOAuth;
  /** Live tasks one credential may have at once (RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY). */
  maxActiveTasksPerKey?: number;
  /**
   * Open streams, blocking waits and task creations per credential (RUNIFOLD_MAX_STREAMS_PER_KEY,
   * RUNIFOLD_MAX_WAITS_PER_KEY, RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_KEY): one object per
   * process, given to the POST and the GET handler alike so both count the same streams.
   */
  limits?: CredentialLimits;
  /** RUNIFOLD_PUBLIC_URL: URL-mode input points at `<this>/inbox/<task>/<key>` (url-input.ts); unset, no URL mode. */
  publicUrl?: string;
};

/**
 * POST /api/mcp as a pure function of its dependencies: authenticate → handle. Stateless, so any
 * instance can serve any request. A store that cannot authenticate answers 503, not 500. The web
 * route (app/api/mcp/route.ts via lib/server) and the test server (tests/helpers/mcp-server.ts)
 * both bind this one function.
 */
export function createMcpHandler(deps: McpHandlerDeps): McpPostHandler {
  return async function handleMcp(request: Request, read?: CappedBody): Promise<Response> {
    const sql = deps.sql();
    // A legacy request in a session is read before authentication (under the same cap) when no
    // wrapper read it: its body names what the gate reads with the key (legacy/read-ahead.ts).
    const body = read ?? (request.headers.has(SESSION_HEADER) && isJsonRequest(request) ? await readMcpBody(request) : undefined);
    const gate = await authenticate(request, gateConfigOf(deps, sql), legacyReadAhead(request, body)).catch((error) => {
      deps.logger.error("authentication unavailable", { error: (error as Error).message });
      return jsonResponse({ error: "unavailable", message: "Service temporarily unavailable" }, 503);
    });
    if (gate instanceof Response) return gate;
    return handleMcpPost(
      {
        sql,
        logger: deps.logger,
        reauthorize: gate.reauthorize,
        resourceMetadataUrl: deps.oauth?.resourceMetadataUrl,
        maxActiveTasksPerKey: deps.maxActiveTasksPerKey,
        limits: deps.limits,
        publicUrl: deps.publicUrl,
      },
      {
        principal: gate.principal,
        request,
        signal: request.signal,
        prefetchedTask: gate.prefetchedTask,
        prefetchedTool: gate.prefetchedTool,
        prefetchedSession: gate.prefetchedSession,
      },
      body,
    );
  };
}

/** What the auth gate needs of the handler's dependencies: the same for POST and the session verbs. */
export function gateConfigOf(deps: McpHandlerDeps, sql: SqlHandle): GateConfig {
  return {
    sql,
    logger: deps.logger,
    allowedOrigins: deps.allowedOrigins,
    insecureLoopbackTenant: deps.insecureLoopbackTenant,
    host: deps.host,
    oauth: deps.oauth,
    maxActiveTasksPerKey: deps.maxActiveTasksPerKey,
  };
}

/** 405 for what /api/mcp does not offer: a GET without a legacy session, anything in the 2026-07-28 era but POST. */
export function methodNotAllowed(): Response {
  return jsonResponse({ error: "method_not_allowed", message: "Use POST" }, 405, { allow: "POST" });
}
