import { errorResponse, type JsonRpcId, type JsonRpcRequest, jsonResponse, McpError, RPC, rpcResult } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { requireMethodScopes } from "../scopes";
import { withServerInfo } from "../server-info";
import { discover } from "./discover";
import { readModernEnvelope } from "./envelope";
import { subscriptionsListen } from "./subscriptions-listen";
import { tasksCancel, tasksGet, tasksUpdate } from "./tasks-methods";
import { toolsCall } from "./tools-call";
import { toolsList } from "./tools-list";

const METHODS = new Set([
  "server/discover",
  "tools/list",
  "tools/call",
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
  "subscriptions/listen",
]);

/**
 * The modern leg (protocol 2026-07-28 + io.modelcontextprotocol/tasks). Order matters and follows
 * the spec: unknown methods first (-32601, so removed `tasks/result`/`tasks/list` need no headers),
 * then the envelope and routing headers (-32022/-32602/-32020), then each method's capability gate
 * (-32021) before any lookup (-32602).
 */
export async function handleModernRequest(deps: McpDeps, call: McpCall, message: JsonRpcRequest): Promise<Response> {
  const id = message.id ?? null;
  if (message.id === undefined) return new Response(null, { status: 202 });
  if (!METHODS.has(message.method)) {
    return errorResponse(id, new McpError(RPC.methodNotFound, `Method not found: ${message.method}`, undefined, 404));
  }
  const params = message.params ?? {};
  const envelope = readModernEnvelope(message.method, params, call.request.headers);
  // The scope table (scopes.ts) is the legacy leg's too: a key without `mcp` runs nothing here either.
  requireMethodScopes(call.principal, message.method);
  if (message.method === "subscriptions/listen") return subscriptionsListen(deps, call, message.id, params, envelope);
  const result = await dispatch(deps, call, message.id, message.method, params, envelope);
  // A tools/call that streams its progress (progress-answer.ts) is already the answer.
  if (result instanceof Response) return result;
  return jsonResponse(rpcResult(id, withServerInfo(result)));
}

function dispatch(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  method: string,
  params: Record<string, unknown>,
  envelope: ReturnType<typeof readModernEnvelope>,
) {
  switch (method) {
    case "server/discover":
      return discover();
    case "tools/list":
      return toolsList(deps, call, params, envelope);
    case "tools/call":
      return toolsCall(deps, call, id, params, envelope);
    case "tasks/get":
      return tasksGet(deps, call, params, envelope);
    case "tasks/update":
      return tasksUpdate(deps, call, params, envelope);
    default:
      return tasksCancel(deps, call, params, envelope);
  }
}
