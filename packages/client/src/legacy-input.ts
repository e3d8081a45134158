import type { RpcMessage } from "./rpc-message";
import type { InputRequest } from "./types";

/**
 * The key under which a legacy elicitation appears in the normalized view (`inputRequests`) and
 * is answered (`updateTask`, `--input KEY=JSON`). 2025-11-25 has no keys, only JSON-RPC request
 * IDs. Runifold's name task, stream and key (`rf-ask:<taskId>:<stream tag>:<key>`, a fresh ID per
 * stream; see lib/mcp/legacy/elicitation-ids.ts), so the key is whatever follows the task ID and the
 * tag; for other servers the ID itself is the key. Either way it is stable across `tasks/result` streams.
 */
export function inputKeyOf(message: RpcMessage, taskId: string): string {
  const id = String(message.id);
  const at = taskId ? id.indexOf(taskId) : -1;
  if (at >= 0) {
    let rest = id.slice(at + taskId.length).replace(/^[:/#._-]+/, "");
    if (id.startsWith(RUNIFOLD_ASK)) rest = rest.slice(rest.indexOf(":") + 1);
    if (rest) return rest;
  }
  return id;
}

const RUNIFOLD_ASK = "rf-ask:";

/**
 * Where Runifold accepts the answer to a task's question without the request having been received
 * (`rf-input:<taskId>:<key>`, the question's stable answer address): a JSON-RPC response POSTed to it
 * from any stream or none (lib/mcp/legacy/client-responses.ts).
 */
export function answerAddress(taskId: string, key: string): string {
  return `rf-input:${taskId}:${key}`;
}

/** The elicitation as an input request, without transport metadata. */
export function inputRequestOf(message: RpcMessage): InputRequest {
  const { _meta: _ignored, ...params } = message.params ?? {};
  return { method: message.method ?? "elicitation/create", params };
}
