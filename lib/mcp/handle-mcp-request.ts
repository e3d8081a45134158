import { coerceError } from "@runifold/sdk";
import { type CappedBody, parseJsonBody, readCappedBody } from "../http-api";
import { isModernMessage } from "./era";
import { errorResponse, isRecord, type JsonRpcRequest, jsonResponse, McpError, RPC, rpcError, validRequestId } from "./json-rpc";
import { inspectJson, MAX_JSON_DEPTH } from "./json-shape";
import { acceptsBatches, handleLegacyBatch } from "./legacy/batch";
import { handleLegacyMessage } from "./legacy/router";
import { attachSession } from "./legacy/session";
import type { McpCall, McpDeps } from "./mcp-deps";
import { handleModernRequest } from "./modern/router";
import { InsufficientScope } from "./scopes";

/** Bodies above this are refused before parsing (413). */
export const MAX_BODY_BYTES = 1_048_576;

/** Reads a POST body as the handler does: at most MAX_BODY_BYTES, counted as it arrives. */
export function readMcpBody(request: Request): Promise<CappedBody> {
  return readCappedBody(request, MAX_BODY_BYTES);
}

/** A POST whose Content-Type says JSON: the only kind whose body is read. */
export function isJsonRequest(request: Request): boolean {
  return (request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json");
}

/**
 * POST /api/mcp after authentication: read and parse the body, pick the era, run the leg, and turn
 * every failure into a protocol answer. Nothing internal reaches the client: unexpected errors are
 * logged and answered with a generic -32603.
 */
export async function handleMcpPost(deps: McpDeps, call: McpCall, readAlready?: CappedBody): Promise<Response> {
  if (!isJsonRequest(call.request)) {
    return jsonResponse(rpcError(null, RPC.invalidRequest, "Content-Type must be application/json"), 415);
  }
  // Read while counting: a chunked body, or one whose Content-Length lies, is cut off at the cap
  // instead of being buffered whole first (review M3). A caller that read it already (under the
  // same cap: readMcpBody) hands it over.
  const read = readAlready ?? (await readMcpBody(call.request));
  if (read.kind === "too_large") return tooLarge();
  if (read.kind === "unreadable")
    return jsonResponse(rpcError(null, RPC.parseError, "Parse error: the body could not be read"), 400);
  // Parsed once: the gate's legacy read-ahead may have parsed these bytes already (parseJsonBody remembers).
  const parsed = parseJsonBody(read);
  if (!parsed.ok) return jsonResponse(rpcError(null, RPC.parseError, "Parse error: the body is not valid JSON"), 400);
  const body = parsed.value;
  const shape = inspectJson(body);
  if (shape.tooDeep) {
    return jsonResponse(
      rpcError(null, RPC.invalidRequest, `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`),
      400,
    );
  }

  // One JSON-RPC message per POST, except the batches 2025-03-26 requires (legacy/batch.ts);
  // 2025-06-18 removed batching, and the modern era never had it.
  // The session is attached first: its negotiated version decides when no header does (D13).
  if (Array.isArray(body) && !shape.hasNul) {
    const inSession = await guard(deps, null, () => attachSession(deps, call, body));
    if (inSession instanceof Response) return inSession;
    if (acceptsBatches(call.request.headers, inSession.session)) {
      return handleLegacyBatch(deps, inSession, body, (d, c, message) =>
        guard(d, isRecord(message) ? validId(message.id) : null, () => handleLegacyMessage(d, c, message)),
      );
    }
  }
  if (!isRecord(body))
    return jsonResponse(rpcError(null, RPC.invalidRequest, "Invalid Request: expected one JSON-RPC object"), 400);
  // Postgres text and jsonb cannot hold U+0000; refuse it up front rather than fail on insert. A
  // parameter error travels in-band (HTTP 200): 400 belongs to envelope, header and capability
  // errors (2026-07-28 Streamable HTTP), and an SDK v1 client loses the JSON-RPC code on a 4xx.
  if (shape.hasNul) {
    return jsonResponse(rpcError(validId(body.id), RPC.invalidParams, "Invalid params: strings must not contain U+0000"));
  }
  if (isModernMessage(body, call.request.headers)) {
    const message = body as JsonRpcRequest;
    const id = validId(message.id);
    if (!isRequestShape(message)) return jsonResponse(rpcError(id, RPC.invalidRequest, "Invalid JSON-RPC request"), 400);
    return guard(deps, id, () => handleModernRequest(deps, call, message));
  }
  // Sessions are legacy only (2026-07-28 has none: a modern request's Mcp-Session-Id is ignored).
  return guard(deps, validId(body.id), async () => {
    const inSession = await attachSession(deps, call, body);
    return inSession instanceof Response ? inSession : handleLegacyMessage(deps, inSession, body);
  });
}

function isRequestShape(message: unknown): message is JsonRpcRequest {
  if (!isRecord(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string") return false;
  if (message.id !== undefined && validId(message.id) === null) return false;
  return message.params === undefined || isRecord(message.params);
}

const validId = validRequestId;

async function guard<T = Response>(deps: McpDeps, id: string | number | null, run: () => Promise<T>): Promise<T | Response> {
  try {
    return await run();
  } catch (caught) {
    if (caught instanceof InsufficientScope) {
      return jsonResponse(rpcError(id, caught.code, caught.message), 403, {
        "www-authenticate": `Bearer error="insufficient_scope", scope="${caught.scope}"${
          deps.resourceMetadataUrl ? `, resource_metadata="${deps.resourceMetadataUrl}"` : ""
        }`,
      });
    }
    if (caught instanceof McpError) return errorResponse(id, caught);
    deps.logger.error("mcp request failed", { error: coerceError(caught).message });
    return jsonResponse(rpcError(id, RPC.internalError, "Internal error"), 503);
  }
}

function tooLarge(): Response {
  return jsonResponse(rpcError(null, RPC.invalidRequest, `Request body exceeds ${MAX_BODY_BYTES} bytes`), 413);
}
