import { randomUUID } from "node:crypto";
import { openMcpSessionStream } from "../../db/queries/mcp-sessions";
import { type McpHandlerDeps, methodNotAllowed } from "./create-mcp-handler";
import { holdStream } from "./credential-limits";
import { errorResponse, jsonResponse, McpError, RPC, rpcError } from "./json-rpc";
import { requestVersion } from "./legacy/protocol-version";
import { SESSION_HEADER, SESSION_IDLE_TTL_MS, sessionDigest, sessionNotFound, wellFormedSessionId } from "./legacy/session";
import { type LocalStreams, streamStandalone } from "./legacy/standalone-stream";
import { authenticateSessionRequest, statesModernVersion } from "./session-request-gate";
import { acceptsEventStream } from "./sse";

/**
 * GET /api/mcp: a legacy session's standalone SSE stream (2025-11-25 basic/transports.mdx "Listening
 * for Messages from the Server"; the stream itself is legacy/standalone-stream.ts). The server "MUST
 * either return Content-Type: text/event-stream … or else return HTTP 405":
 *  - no `Mcp-Session-Id` → 405, as before: a stateless client is never sent a server-initiated
 *    request (nothing is known about what it can receive), so it has nothing to listen for;
 *  - a request stating a 2026-07-28 version → 405 (that era has no sessions and no GET stream);
 *  - otherwise authenticated exactly like POST (Origin, API key or OAuth token; `mcp` scope), an
 *    unsupported MCP-Protocol-Version is 400, an Accept without `text/event-stream` is 406 ("The
 *    client MUST include an Accept header, listing text/event-stream"), and an unknown, expired or
 *    another credential's session is 404 with the POST's body (the client then initializes again).
 * One stream per session: a new GET takes the session's slot and the previous stream, on whichever
 * instance, ends within a round (the client reconnects only when its own stream ended, so the newest
 * is the live one). `Last-Event-ID` is ignored: no event IDs are issued, nothing can be replayed.
 */
export function createMcpStandaloneStreamHandler(
  deps: McpHandlerDeps,
  options: { maxLifetimeMs?: number } = {},
): (request: Request) => Promise<Response> {
  const local: LocalStreams = new Map();
  return async function standaloneStream(request: Request): Promise<Response> {
    if (statesModernVersion(request.headers)) return methodNotAllowed();
    const rawId = request.headers.get(SESSION_HEADER);
    if (rawId === null) return methodNotAllowed();
    const sql = deps.sql();
    try {
      const gate = await authenticateSessionRequest(request, deps, sql);
      if (gate instanceof Response) return gate;
      requestVersion(request.headers);
      if (!acceptsEventStream(request.headers)) {
        return jsonResponse(rpcError(null, RPC.invalidRequest, "GET needs Accept: text/event-stream"), 406);
      }
      const id = rawId.trim();
      if (!wellFormedSessionId(id)) return sessionNotFound();
      const idSha256 = sessionDigest(id);
      const streamId = randomUUID();
      const mcpDeps = {
        sql,
        logger: deps.logger,
        reauthorize: gate.reauthorize,
        resourceMetadataUrl: deps.oauth?.resourceMetadataUrl,
        limits: deps.limits,
        publicUrl: deps.publicUrl,
      };
      const call = { principal: gate.principal, request, signal: request.signal };
      // The credential's stream budget (credential-limits.ts) is taken before the session's slot, so
      // a refused GET (429) leaves the session's current stream in place.
      const release = holdStream(mcpDeps, call);
      let handedOver = false;
      try {
        const row = await openMcpSessionStream(sql, {
          idSha256,
          tenantId: gate.principal.tenantId,
          keyId: gate.principal.keyId,
          streamId,
          ttlMs: SESSION_IDLE_TTL_MS,
        });
        if (!row) return sessionNotFound();
        deps.logger.info("standalone stream opened", { keyId: gate.principal.keyId });
        const session = { idSha256, protocolVersion: row.protocol_version, clientCapabilities: row.client_capabilities };
        handedOver = true;
        return streamStandalone(mcpDeps, call, session, { streamId, local, maxLifetimeMs: options.maxLifetimeMs, release });
      } finally {
        if (!handedOver) release();
      }
    } catch (error) {
      if (error instanceof McpError) return errorResponse(null, error);
      deps.logger.error("mcp standalone stream failed", { error: (error as Error).message });
      return jsonResponse({ error: "unavailable", message: "Service temporarily unavailable" }, 503);
    }
  };
}
