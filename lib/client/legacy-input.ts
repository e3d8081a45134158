import type { RpcMessage } from "./transport";
import type { InputRequest } from "./types";

/** A server may name the durable key of an elicitation in its `_meta` under this name. */
export const INPUT_KEY_META = "io.runifold/inputKey";

/**
 * The key under which a legacy elicitation appears in the normalized view (`inputRequests`) and
 * is answered (`updateTask`, `--input KEY=JSON`). 2025-11-25 has no keys, only JSON-RPC request
 * IDs; Runifold derives those from task and key, so the key is read from `_meta` when the server
 * names it, else taken from the ID after the task ID, else the ID itself. Either way it is stable
 * across `tasks/result` streams.
 */
export function inputKeyOf(message: RpcMessage, taskId: string): string {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const named = meta?.[INPUT_KEY_META];
  if (typeof named === "string" && named.length > 0) return named;
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
