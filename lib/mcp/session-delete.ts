import { deleteMcpSession } from "../../db/queries/mcp-sessions";
import type { McpHandlerDeps } from "./create-mcp-handler";
import { jsonResponse, RPC, rpcError } from "./json-rpc";
import { SESSION_HEADER, sessionDigest, sessionNotFound } from "./legacy/session";
import { authenticateSessionRequest, statesModernVersion } from "./session-request-gate";

/**
 * DELETE /api/mcp: a legacy client ends its session (2025-11-25 basic/transports.mdx "Session
 * Management": clients that no longer need a session SHOULD send DELETE with the Mcp-Session-Id
 * header). Authenticated exactly like POST; only the credential that initialized a session can end
 * it, and unknown, expired and another credential's IDs all answer 404 (so none reveals that an ID
 * exists), as every later request naming an ended session does. 204 when it was ended; 400 without
 * the header. The 2026-07-28 era has no sessions: a DELETE stating a modern version gets 405.
 */
export function createMcpSessionDeleteHandler(deps: McpHandlerDeps): (request: Request) => Promise<Response> {
  return async function deleteSession(request: Request): Promise<Response> {
    if (statesModernVersion(request.headers)) {
      return jsonResponse({ error: "method_not_allowed", message: "Use POST" }, 405, { allow: "POST" });
    }
    const sql = deps.sql();
    try {
      const gate = await authenticateSessionRequest(request, deps, sql);
      if (gate instanceof Response) return gate;
      const id = request.headers.get(SESSION_HEADER)?.trim();
      if (!id) return jsonResponse(rpcError(null, RPC.invalidRequest, `DELETE needs the ${SESSION_HEADER} header`), 400);
      const ended = await deleteMcpSession(sql, {
        idSha256: sessionDigest(id),
        tenantId: gate.principal.tenantId,
        keyId: gate.principal.keyId,
      });
      if (!ended) return sessionNotFound();
      deps.logger.info("mcp session ended by the client", { keyId: gate.principal.keyId });
      return new Response(null, { status: 204 });
    } catch (error) {
      deps.logger.error("mcp session delete failed", { error: (error as Error).message });
      return jsonResponse({ error: "unavailable", message: "Service temporarily unavailable" }, 503);
    }
  };
}
