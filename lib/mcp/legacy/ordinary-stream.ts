import type { RouteRow } from "../../../db/queries/routes";
import { tenantOffersHandles } from "../../../db/queries/tenants";
import { type TaskRecord, waitForTask } from "../../tasks";
import { type JsonRpcId, McpError, RPC, rpcError, rpcResult } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { openSse, type SseStream } from "../sse";
import { ordinaryAnswer, syncDeadlineMs } from "../tool-invocation";
import { isTerminalRecord } from "./bound-task";
import { deliveryLedger } from "./deliveries";
import { newStreamTag } from "./elicitation-ids";
import { inlineClock } from "./inline-clock";
import { cancelledByClient, forgetAnsweredCall } from "./ordinary-cancel";
import { questionRequest } from "./question-request";
import { withdrawQuestions } from "./withdrawal";

/** Long waits re-check the credential now and then, so a revoked key stops receiving questions. */
const REAUTHORIZE_MS = 30_000;
/** After a store error, the next read is tried this much later (a round is skipped, nothing invented). */
const RETRY_AFTER_ERROR_MS = 1_000;
/** A question claimed by another stream is tried again this often. */
const CLAIM_RETRY_MS = 2_000;

/**
 * An ordinary (non-task) tools/call answered as an SSE stream, for a client whose session declared
 * elicitation (2025-11-25 basic/transports.mdx "Sending Messages to the Server": before the response
 * "the server MAY send JSON-RPC requests … These messages SHOULD relate to the originating client
 * request"). The run is durable as always; this stream follows it and:
 *  - sends each of its input requests the session can answer (mode included, sessionCanAsk) as an
 *    `elicitation/create` request, once, after claiming it (deliveries.ts), with the ID `rf-input:<run>:<key>` — unique on this stream
 *    and naming the run, so the client's answer, POSTed as a JSON-RPC response to ANY instance, is
 *    routed by client-responses.ts through the one provideInput path (validated, actor = the
 *    answering credential's);
 *  - sends `notifications/progress` with the call's progressToken, only rising values — the last one too
 *    when it is read together with the run's end, before the response;
 *  - ends with the tools/call response: the result, the run's JSON-RPC error, or past the clock
 *    (inline-clock.ts) the task handle (or, where the tenant turned handles off, the "still running" tool error).
 * Whoever answers first wins (an operator in the console, tasks/update, the CLI): the stream sees the
 * run move on and withdraws the question it sent with `notifications/cancelled` (withdrawal.ts), as
 * it does for questions left open when the run ends (cancelled). A client that cancels the call with
 * `notifications/cancelled` (ordinary-cancel.ts) cancels the run, and this stream then ends without
 * a response (cancellation.mdx: the receiver SHOULD not send one). A client that disconnects does not cancel the run (2025-11-25 transports: "Disconnection
 * SHOULD NOT be interpreted as the client cancelling its request"); the question stays answerable.
 */
export function streamOrdinaryCall(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  route: RouteRow,
  started: TaskRecord,
  progressToken: string | number | undefined,
  /** Gives back the credential's stream slot (credential-limits.ts) once the stream ends, however it ends. */
  release: () => void = () => {},
): Response {
  const sse = openSse(call.signal);
  sse.onClose(release);
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
  const session = call.session;
  if (!session) return sse.close();
  const asked = new Set<string>();
  // Of those, the ones sent in URL mode (url-input.ts): completed, not withdrawn, once answered.
  const urlKeys = new Set<string>();
  // This stream's questions go out under IDs of their own (elicitation-ids.ts, review3 D9).
  const streamTag = newStreamTag();
  const clock = inlineClock(syncDeadlineMs(route));
  // Past the clock the answer is the task handle where the tenant offers handles (tool-invocation.ts).
  const handles = await tenantOffersHandles(deps.sql, call.principal.tenantId);
  // Questions go out only once claimed for this stream (deliveries.ts): a tasks/result naming this
  // run could see them too, and only one stream may carry each ("Multiple Connections").
  const ledger = deliveryLedger(deps.sql, {
    sessionIdSha256: session.idSha256,
    standalone: false,
    onError: (error) => deps.logger.warn("inline tools/call: delivery claims not released", { taskId, error: error.message }),
  });
  sse.onClose(() => void ledger.release());
  let lastProgress = Number.NEGATIVE_INFINITY;
  let authorizedAt = Date.now();
  let record: TaskRecord | undefined = started;
  const finish = async (message: unknown) => {
    await forgetAnsweredCall(deps, taskId);
    sse.send(message);
    sse.close();
  };

  while (!sse.closed) {
    if (Date.now() - authorizedAt > REAUTHORIZE_MS) {
      if (!(await deps.reauthorize())) return finish(rpcError(id, RPC.invalidRequest, "The API key is no longer valid"));
      authorizedAt = Date.now();
    }
    if (!record) return finish(rpcError(id, RPC.internalError, "The run is no longer available"));
    const pending = record.pendingInputs ?? {};
    const gone = [...asked].filter((key) => !(key in pending));
    for (const key of gone) asked.delete(key);
    await withdrawQuestions(sse, ledger, { actor: call.principal.actor, runId: taskId, keys: gone, streamTag, urlKeys });
    for (const key of gone) urlKeys.delete(key);
    // The client cancelled this very request (ordinary-cancel.ts): no response (cancellation.mdx).
    if (isTerminalRecord(record) && cancelledByClient(record)) return sse.close();
    // A value reported just before the run ended is read with its end: it still goes out, before
    // the response (progress.mdx: notifications stop only once the request completes).
    if (progressToken !== undefined && record.progress && record.progress.progress > lastProgress) {
      lastProgress = record.progress.progress;
      sse.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, ...record.progress } });
    }
    if (isTerminalRecord(record)) return finish(answer(id, record, taskId, { route, handles }));
    const question = (key: string) => {
      const request = pending[key];
      return request && questionRequest(session, deps.publicUrl, { taskId, key, streamTag }, request);
    };
    const candidates = Object.keys(pending).filter((key) => !asked.has(key) && question(key) !== undefined);
    const won = candidates.length > 0 ? await ledger.claim(taskId, candidates) : [];
    for (const key of won) {
      const request = question(key);
      if (sse.closed || !request || asked.has(key)) continue;
      asked.add(key);
      if (request.url) urlKeys.add(key);
      sse.send(request.message);
    }
    await ledger.renewIfDue();
    const outstanding = Object.keys(pending).some((key) => asked.has(key));
    const deadline = clock.deadline(outstanding, Date.now());
    if (Date.now() >= deadline) return finish(answer(id, record, taskId, { route, handles, lead: clock.describe(outstanding) }));
    // A question another stream holds is tried again soon (that stream may end), not only on a change.
    const wakeAt = won.length < candidates.length ? Math.min(deadline, Date.now() + CLAIM_RETRY_MS) : deadline;

    const seen = fingerprint(record);
    try {
      record = await waitForTask(deps.sql, {
        tenantId: call.principal.tenantId,
        taskId,
        done: (next) => fingerprint(next) !== seen,
        deadline: wakeAt,
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

function answer(id: JsonRpcId, record: TaskRecord, taskId: string, context: Parameters<typeof ordinaryAnswer>[2]) {
  try {
    return rpcResult(id, ordinaryAnswer(record, taskId, context));
  } catch (error) {
    if (error instanceof McpError) return rpcError(id, error.code, error.message, error.data);
    throw error;
  }
}
