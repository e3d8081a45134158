import type { RouteRow } from "../../../db/queries/routes";
import { type TaskRecord, waitForTask } from "../../tasks";
import { type JsonRpcId, McpError, RPC, rpcError, rpcResult } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { ordinaryAnswer } from "../tool-invocation";
import { isTerminalRecord } from "./bound-task";
import { elicitationRequestId } from "./elicitation-ids";
import { inlineClock } from "./inline-clock";
import { sessionCanAsk } from "./session";
import { openSse, type SseStream } from "./sse";

/** Long waits re-check the credential now and then, so a revoked key stops receiving questions. */
const REAUTHORIZE_MS = 30_000;
/** After a store error, the next read is tried this much later (a round is skipped, nothing invented). */
const RETRY_AFTER_ERROR_MS = 1_000;

/**
 * An ordinary (non-task) tools/call answered as an SSE stream, for a client whose session declared
 * elicitation (2025-11-25 basic/transports.mdx "Sending Messages to the Server": before the response
 * "the server MAY send JSON-RPC requests … These messages SHOULD relate to the originating client
 * request"). The run is durable as always; this stream follows it and:
 *  - sends each of its input requests the session can answer (mode included, sessionCanAsk) as an
 *    `elicitation/create` request, once, with the ID `rf-input:<run>:<key>` — unique on this stream
 *    and naming the run, so the client's answer, POSTed as a JSON-RPC response to ANY instance, is
 *    routed by client-responses.ts through the one provideInput path (validated, actor = the
 *    answering credential's);
 *  - sends `notifications/progress` with the call's progressToken, only rising values;
 *  - ends with the tools/call response: the result, the run's JSON-RPC error, or past the clock
 *    (inline-clock.ts) the "still running" tool error naming the task.
 * Whoever answers first wins (an operator in the console, tasks/update): the stream just sees the run
 * move on. A client that disconnects does not cancel the run (2025-11-25 transports: "Disconnection
 * SHOULD NOT be interpreted as the client cancelling its request"); the question stays answerable.
 */
export function streamOrdinaryCall(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  route: RouteRow,
  started: TaskRecord,
  progressToken: string | number | undefined,
): Response {
  const sse = openSse(call.signal);
  void follow(deps, call, id, route, started, progressToken, sse).catch((error) => {
    deps.logger.error("inline tools/call stream failed", { taskId: started.id, error: (error as Error).message });
    sse.send(rpcError(id, RPC.internalError, "Internal error"));
    sse.close();
  });
  return sse.response;
}

async function follow(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  route: RouteRow,
  started: TaskRecord,
  progressToken: string | number | undefined,
  sse: SseStream,
): Promise<void> {
  const taskId = started.id;
  const asked = new Set<string>();
  const clock = inlineClock(route.sync_deadline_ms);
  let lastProgress = Number.NEGATIVE_INFINITY;
  let authorizedAt = Date.now();
  let record: TaskRecord | undefined = started;
  const finish = (message: unknown) => {
    sse.send(message);
    sse.close();
  };

  while (!sse.closed) {
    if (Date.now() - authorizedAt > REAUTHORIZE_MS) {
      if (!(await deps.reauthorize())) return finish(rpcError(id, RPC.invalidRequest, "The API key is no longer valid"));
      authorizedAt = Date.now();
    }
    if (!record) return finish(rpcError(id, RPC.internalError, "The run is no longer available"));
    if (isTerminalRecord(record)) return finish(answer(id, record, taskId, ""));

    if (progressToken !== undefined && record.progress && record.progress.progress > lastProgress) {
      lastProgress = record.progress.progress;
      sse.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, ...record.progress } });
    }
    const pending = record.pendingInputs ?? {};
    for (const [key, request] of Object.entries(pending)) {
      if (asked.has(key) || !sessionCanAsk(call.session, request)) continue;
      asked.add(key);
      sse.send({ jsonrpc: "2.0", id: elicitationRequestId(taskId, key), method: request.method, params: request.params });
    }
    const outstanding = Object.keys(pending).some((key) => asked.has(key));
    const deadline = clock.deadline(outstanding, Date.now());
    if (Date.now() >= deadline) return finish(answer(id, record, taskId, clock.describe(outstanding)));

    const seen = fingerprint(record);
    try {
      record = await waitForTask(deps.sql, {
        tenantId: call.principal.tenantId,
        taskId,
        done: (next) => fingerprint(next) !== seen,
        deadline,
        signal: call.signal,
      });
    } catch (error) {
      deps.logger.warn("inline tools/call round skipped: store unavailable", { taskId, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_ERROR_MS));
    }
  }
}

/** What a re-read must differ in to be worth a round: status, outstanding keys, progress. */
function fingerprint(record: TaskRecord): string {
  return JSON.stringify([record.status, Object.keys(record.pendingInputs ?? {}), record.progress?.progress]);
}

function answer(id: JsonRpcId, record: TaskRecord, taskId: string, why: string) {
  try {
    return rpcResult(id, ordinaryAnswer(record, taskId, why));
  } catch (error) {
    if (error instanceof McpError) return rpcError(id, error.code, error.message, error.data);
    throw error;
  }
}
