import type { RpcMessage } from "./rpc-message";
import type { InputRequest } from "./types";

/**
 * The key under which a legacy elicitation appears in the normalized view (`inputRequests`) and
 * is answered (`updateTask`, `--input KEY=JSON`). 2025-11-25 has no keys, only JSON-RPC request
 * IDs. Runifold derives those from task and key (`rf-input:<taskId>:<key>`, see
 * lib/mcp/legacy/elicitation-ids.ts), so the key is whatever follows the task ID; for other
 * servers the ID itself is the key. Either way it is stable across `tasks/result` streams.
 */
export function inputKeyOf(message: RpcMessage, taskId: string): string {
  const id = String(message.id);
  const at = taskId ? id.indexOf(taskId) : -1;
  if (at >= 0) {
    const rest = id.slice(at + taskId.length).replace(/^[:/#._-]+/, "");
    if (rest) return rest;
  }
  return id;
}

/** The elicitation as an input request, without transport metadata. */
export function inputRequestOf(message: RpcMessage): InputRequest {
  const { _meta: _ignored, ...params } = message.params ?? {};
  return { method: message.method ?? "elicitation/create", params };
}
