import { type TaskRecord, waitForTask } from "../../tasks";
import { whileWaiting } from "../credential-limits";
import { type JsonRpcId, jsonResponse, RPC, rpcError } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { acceptsEventStream } from "../sse";
import { isTerminalRecord, requireBoundTask, taskIdOf, taskNotFound } from "./bound-task";
import { streamTaskResult } from "./result-stream";
import { terminalAnswer } from "./terminal-answer";

/** A JSON-mode wait re-checks the credential this often, and once more before it answers. */
export const JSON_WAIT_REAUTHORIZE_MS = 30_000;

/**
 * tasks/result (2025-11-25 "Result Retrieval"): a terminal task is answered at once; a `working` or
 * `input_required` one MUST block until it is terminal (docs/mcp-legacy.md checklist L11) — never a partial result or
 * an error (the hang in SDKs and the Inspector came from servers doing otherwise).
 *
 * A client that accepts `text/event-stream` gets the wait as an SSE stream on which the task's
 * questions arrive as `elicitation/create` when its session declared elicitation (see
 * result-stream.ts). A JSON-only client just waits:
 * it cannot receive questions, so an `input_required` task then waits for an operator's answer.
 * Like the SSE form, the wait re-checks the credential every JSON_WAIT_REAUTHORIZE_MS and before
 * the answer goes out: a key revoked meanwhile gets an error, never the result (tasks.mdx
 * "Security Considerations": the binding holds for the whole request). Either form counts against
 * the credential's budget (a stream or a wait slot, credential-limits.ts); a terminal task's
 * immediate answer against neither.
 */
export async function tasksResult(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  params: Record<string, unknown>,
): Promise<Response> {
  const taskId = taskIdOf(params);
  const record = await requireBoundTask(deps.sql, call.principal, taskId, "tasks/result");
  if (isTerminalRecord(record)) return jsonResponse(terminalAnswer(id, record));
  if (acceptsEventStream(call.request.headers)) return streamTaskResult(deps, call, id, record);

  // A JSON wait holds one of the credential's wait slots until it answers (credential-limits.ts).
  return whileWaiting(deps, call, () => waitJson(deps, call, id, record));
}

async function waitJson(deps: McpDeps, call: McpCall, id: JsonRpcId, record: TaskRecord): Promise<Response> {
  const taskId = record.id;
  let final = record as typeof record | undefined;
  for (;;) {
    final = await waitForTask(deps.sql, {
      tenantId: call.principal.tenantId,
      taskId,
      done: (r) => r.handleExpired || isTerminalRecord(r),
      deadline: Date.now() + JSON_WAIT_REAUTHORIZE_MS,
      signal: call.signal,
    });
    if (!(await deps.reauthorize())) {
      return jsonResponse(rpcError(id, RPC.invalidRequest, "The API key is no longer valid"));
    }
    if (!final || final.handleExpired || isTerminalRecord(final) || call.signal.aborted) break;
  }
  // Expired or purged while we waited: from now on it answers like an unknown ID.
  if (!final || final.handleExpired) throw taskNotFound();
  // Not terminal only when the client went away; nobody reads this answer.
  return jsonResponse(
    isTerminalRecord(final)
      ? terminalAnswer(id, final)
      : { jsonrpc: "2.0", id, error: { code: -32603, message: "Request aborted" } },
  );
}
