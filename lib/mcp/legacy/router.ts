import { isRecord, type JsonRpcId, jsonResponse, McpError, RPC, rpcError, rpcResult, validRequestId } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { requireMethodScopes } from "../scopes";
import { acceptClientResponse } from "./client-responses";
import { initializeResponse } from "./initialize";
import { acceptCancelledNotification } from "./ordinary-cancel";
import { requestVersion } from "./protocol-version";
import { tasksCancel } from "./tasks-cancel";
import { tasksGet } from "./tasks-get";
import { tasksList } from "./tasks-list";
import { tasksResult } from "./tasks-result";
import { toolsCall } from "./tools-call";
import { toolsList } from "./tools-list";

/**
 * The legacy leg: protocol 2025-11-25 (experimental tasks) and older, hand-rolled over the same
 * durable store as the modern leg. Each request carries its version in the MCP-Protocol-Version
 * header; the session minted at initialize (session.ts) only records what the client declared, and
 * is resolved from Postgres before the message gets here (handle-mcp-request.ts); task state lives
 * in Postgres only, so any instance answers any request — including the client's responses to our
 * elicitations.
 *
 * One POST body is one JSON-RPC message, or for 2025-03-26 a batch of them (batch.ts):
 *  - a request → its response (JSON, or SSE for a blocking tasks/result);
 *  - a notification → 202; `notifications/cancelled` of an ordinary tools/call first cancels its
 *    run (ordinary-cancel.ts), every other one has nothing to update;
 *  - a response → the answer to an elicitation/create we sent → provideInput, 202.
 * Malformed envelopes are 400; every other error travels in-band with HTTP 200.
 */
export async function handleLegacyMessage(deps: McpDeps, call: McpCall, message: unknown): Promise<Response> {
  if (!isRecord(message) || message.jsonrpc !== "2.0") {
    return jsonResponse(rpcError(null, RPC.invalidRequest, "Invalid JSON-RPC message"), 400);
  }
  const id = validRequestId(message.id);
  if (typeof message.method !== "string") {
    if (id !== null && ("result" in message || "error" in message)) return acceptClientResponse(deps, call, message);
    return jsonResponse(rpcError(id, RPC.invalidRequest, "Invalid JSON-RPC message"), 400);
  }
  if (message.params !== undefined && !isRecord(message.params)) {
    return jsonResponse(rpcError(id, RPC.invalidRequest, "params must be an object"), 400);
  }
  if (message.id === undefined) {
    if (message.method === "notifications/cancelled") await acceptCancelledNotification(deps, call, message.params);
    return new Response(null, { status: 202 });
  }
  if (id === null) return jsonResponse(rpcError(null, RPC.invalidRequest, "Invalid JSON-RPC id"), 400);

  requireMethodScopes(call.principal, message.method);
  const params = (message.params ?? {}) as Record<string, unknown>;
  if (message.method === "initialize") return initializeResponse(deps, call, id, params);
  const version = requestVersion(call.request.headers, call.session);
  if (message.method === "tasks/result") return tasksResult(deps, call, id, params);
  // A tools/call may answer as an SSE stream (questions asked inline, tools-call.ts): then it is the Response.
  const result = await dispatch(deps, call, id, message.method, params, version);
  return result instanceof Response ? result : jsonResponse(rpcResult(id, result));
}

function dispatch(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  method: string,
  params: Record<string, unknown>,
  version: string,
): unknown {
  switch (method) {
    case "ping":
      return {};
    case "tools/list":
      return toolsList(deps, call, params);
    case "tools/call":
      return toolsCall(deps, call, id, params, version);
    // tasks/* are served whatever the version: a client holds a task ID only if it negotiated tasks.
    case "tasks/get":
      return tasksGet(deps, call, params);
    case "tasks/list":
      return tasksList(deps, call, params);
    case "tasks/cancel":
      return tasksCancel(deps, call, params);
    default:
      throw new McpError(RPC.methodNotFound, `Method not found: ${method.slice(0, 100)}`);
  }
}
