import { presentBoundTask, type TaskRecord, waitForTask } from "../tasks";
import { isRecord, type JsonRpcId, McpError, RPC, rpcError, rpcResult } from "./json-rpc";
import type { McpCall, McpDeps } from "./mcp-deps";
import { acceptsEventStream, openSse } from "./sse";

/** Where a follower reports the run's progress: a notifications/progress on the request's own stream. */
export type ProgressSink = (progress: NonNullable<TaskRecord["progress"]>) => void;

/** The caller's `_meta.progressToken` (basic/utilities/progress: a string or an integer), in both eras. */
export function readProgressToken(params: Record<string, unknown>): string | number | undefined {
  const meta = isRecord(params._meta) ? params._meta : undefined;
  const token = meta?.progressToken;
  if (typeof token === "string" && token.length > 0 && token.length <= 200) return token;
  if (typeof token === "number" && Number.isSafeInteger(token)) return token;
  return undefined;
}

/**
 * Answers a request that waits for a run: with a progressToken and an Accept that allows it, as an
 * SSE stream scoped to the request that carries `notifications/progress` for that token while the
 * work runs, then the response (2025-11-25 basic/transports "Sending Messages to the Server" and
 * 2026-07-28 transports/streamable-http "Receiving Messages": notifications that relate to the
 * request, before its response). A client that resets its timeout on progress (SDK v1
 * `resetTimeoutOnProgress`) then waits as long as the run keeps reporting. Without a token the
 * work's result is returned as is (the router answers it as JSON). `frame` turns the work's result
 * into the response's `result` (the modern leg adds its serverInfo there).
 */
export async function answerWithProgress(
  deps: McpDeps,
  call: McpCall,
  request: { id: JsonRpcId; progressToken: string | number | undefined; frame?: (result: unknown) => unknown },
  work: (sink: ProgressSink | undefined) => Promise<unknown>,
): Promise<unknown> {
  const { id, progressToken } = request;
  if (progressToken === undefined || !acceptsEventStream(call.request.headers)) return work(undefined);
  const sse = openSse(call.signal);
  // Sent at once so proxies and clients see the stream start (headers flushed) before the first progress.
  sse.comment("waiting for the run");
  const sink: ProgressSink = (progress) =>
    sse.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, ...progress } });
  void work(sink).then(
    (result) => {
      sse.send(rpcResult(id, request.frame ? request.frame(result) : result));
      sse.close();
    },
    (error: unknown) => {
      if (error instanceof McpError) sse.send(rpcError(id, error.code, error.message, error.data));
      else {
        deps.logger.error("mcp request failed", { error: (error as Error).message });
        sse.send(rpcError(id, RPC.internalError, "Internal error"));
      }
      sse.close();
    },
  );
  return sse.response;
}

/**
 * Waits for a run like waitForTask, and hands each rising progress value of the run to `sink` on
 * the way (a progress notification's value MUST increase: basic/utilities/progress). Returns the
 * last record read, when `done` holds, at `deadline`, or when the caller goes away.
 */
export async function followTask(
  deps: McpDeps,
  call: McpCall,
  params: { taskId: string; deadline: number; done: (record: TaskRecord) => boolean; sink?: ProgressSink },
): Promise<TaskRecord | undefined> {
  let reported = Number.NEGATIVE_INFINITY;
  const rose = (record: TaskRecord) => params.sink !== undefined && (record.progress?.progress ?? reported) > reported;
  for (;;) {
    const record = await waitForTask(deps.sql, {
      tenantId: call.principal.tenantId,
      taskId: params.taskId,
      done: (r) => params.done(r) || rose(r),
      deadline: params.deadline,
      signal: call.signal,
      // As this caller sees it: an approval its person may decide is input (lib/tasks/approval-view.ts).
      view: (r) => presentBoundTask(deps.sql, { tenantId: call.principal.tenantId, keyId: call.principal.keyId }, r),
    });
    if (record && rose(record) && record.progress) {
      reported = record.progress.progress;
      params.sink?.(record.progress);
    }
    if (!record || params.done(record) || Date.now() >= params.deadline || call.signal.aborted) return record;
  }
}
