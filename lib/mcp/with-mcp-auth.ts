import { createLogger } from "@runifold/sdk";
import { shippedWorkflows } from "../../workflows/demo";
import { readEnv } from "../env";
import { getSql } from "../server/db";
import { authenticate } from "./auth-gate";
import { handleMcpPost } from "./handle-mcp-request";
import { jsonResponse } from "./json-rpc";

/**
 * Builds the POST handler for app/api/mcp: process-wide dependencies resolved once, then per
 * request authenticate → handle. Stateless: any instance can serve any request.
 */
export function createMcpRouteHandler() {
  const env = readEnv();
  const logger = createLogger("mcp", env.RUNIFOLD_LOG_LEVEL);
  const publicOrigin = env.RUNIFOLD_PUBLIC_URL ? new URL(env.RUNIFOLD_PUBLIC_URL).origin : undefined;
  const allowedOrigins = [...env.RUNIFOLD_ALLOWED_ORIGINS, ...(publicOrigin ? [publicOrigin] : [])];
  return async function handleMcpRoute(request: Request): Promise<Response> {
    const sql = getSql();
    const gate = await authenticate(request, {
      sql,
      logger,
      allowedOrigins,
      insecureLoopbackTenant: env.RUNIFOLD_INSECURE_LOOPBACK_TENANT,
      host: env.HOST,
    }).catch((error) => {
      logger.error("authentication unavailable", { error: (error as Error).message });
      return jsonResponse({ error: "unavailable", message: "Service temporarily unavailable" }, 503);
    });
    if (gate instanceof Response) return gate;
    return handleMcpPost(
      { sql, registry: shippedWorkflows, logger, reauthorize: gate.reauthorize },
      { principal: gate.principal, request, signal: request.signal },
    );
  };
}

/** GET and DELETE: no sessions and no standalone stream on this server. */
export function methodNotAllowed(): Response {
  return jsonResponse({ error: "method_not_allowed", message: "Use POST" }, 405, { allow: "POST" });
}
