import type { TaskRecord } from "../../tasks";
import { type JsonRpcId, rpcError, rpcResult } from "../json-rpc";
import { META } from "../server-info";
import { cancelledResult } from "../tool-invocation";

/**
 * The final answer of tasks/result for a terminal task (2025-11-25 "Result Retrieval": exactly what
 * the underlying request would have returned, a successful result or a JSON-RPC error):
 *  - a tool result, `isError: true` included, is returned as stored, as a successful response
 *    carrying `_meta["io.modelcontextprotocol/related-task"]` (docs/mcp-legacy.md checklist L10, L12, L13);
 *  - a run that failed with a JSON-RPC error replays that same error unchanged — an error has no
 *    `_meta` to carry the related-task key, and adding it to `data` would change the error (L10);
 *  - a cancelled task has no result of its own. The spec does not say what to return; we answer what
 *    this server's ordinary (non-task) tools/call answers for a cancelled run — the isError tool
 *    result "Task … was cancelled." — so both paths agree, and the client still gets the related-task
 *    `_meta` to correlate it. (The SDK v1 client never asks: callToolStream stops at `cancelled`.)
 */
export function terminalAnswer(id: JsonRpcId | null, record: TaskRecord) {
  const related = { [META.relatedTask]: { taskId: record.id } };
  if (record.status === "cancelled") return rpcResult(id, { ...cancelledResult(record.id), _meta: related });
  const error = record.terminal?.error;
  if (error) return rpcError(id, error.code, error.message, error.data);
  const result = record.terminal?.result;
  if (!result) {
    return record.status === "failed" ? rpcError(id, -32603, "Task failed") : rpcResult(id, { content: [], _meta: related });
  }
  const ownMeta = (result as { _meta?: Record<string, unknown> })._meta ?? {};
  return rpcResult(id, { ...result, _meta: { ...ownMeta, ...related } });
}
