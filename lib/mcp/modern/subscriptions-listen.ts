import { getTaskFeed, isTerminalTaskStatus, readTaskHandle, type TaskRecord, taskStatus } from "../../tasks";
import { isRecord, type JsonRpcId, McpError, RPC, rpcResult } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { requireScope } from "../scopes";
import { META } from "../server-info";
import { detailedTask } from "../task-shapes";
import { type ModernEnvelope, missingTasksCapability } from "./envelope";

/** At most this many task IDs per subscription; more is -32602. */
export const MAX_TASK_IDS_PER_SUBSCRIPTION = 100;
const FALLBACK_POLL_MS = 2_000;
const KEEPALIVE_MS = 15_000;

/**
 * subscriptions/listen with `taskIds` (ext-tasks "Status Notifications"): an SSE stream that acks
 * the honoured IDs, sends each task's DetailedTask at once, then only changes, and detaches a task
 * after its terminal snapshot; when none are left the stream ends with the listen result. Every
 * snapshot re-authorizes the caller, and a store error sends nothing (no invented transitions).
 */
export async function subscriptionsListen(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  params: Record<string, unknown>,
  envelope: ModernEnvelope,
): Promise<Response> {
  const filter = isRecord(params.notifications) ? params.notifications : {};
  const requested = filter.taskIds;
  if (requested !== undefined) {
    if (!envelope.declaresTasks) throw missingTasksCapability();
    if (!Array.isArray(requested) || !requested.every((v) => typeof v === "string")) {
      throw new McpError(RPC.invalidParams, "notifications.taskIds must be an array of task IDs");
    }
    if (requested.length > MAX_TASK_IDS_PER_SUBSCRIPTION) {
      throw new McpError(RPC.invalidParams, `At most ${MAX_TASK_IDS_PER_SUBSCRIPTION} taskIds per subscription`);
    }
    requireScope(call.principal, "tasks:read");
  }
  const ids = [...new Set((requested as string[] | undefined) ?? [])];
  const tenantId = call.principal.tenantId;
  const initial = new Map<string, TaskRecord>();
  for (const taskId of ids) {
    const record = await readTaskHandle(deps.sql, { tenantId, taskId });
    if (record) initial.set(taskId, record);
  }
  const meta = { [META.subscriptionId]: id };
  const feed = await getTaskFeed(deps.sql);
  const encoder = new TextEncoder();
  const cleanups: (() => void)[] = [];

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const lastSent = new Map<string, string>();
      const active = new Set(initial.keys());
      const send = (message: unknown) =>
        controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
      const finish = () => {
        if (closed) return;
        closed = true;
        for (const cleanup of cleanups) cleanup();
        send(rpcResult(id, { resultType: "complete", _meta: meta }));
        controller.close();
      };
      const publish = (record: TaskRecord) => {
        const snapshot = detailedTask(record);
        const json = JSON.stringify(snapshot);
        if (lastSent.get(record.id) !== json) {
          lastSent.set(record.id, json);
          send({ jsonrpc: "2.0", method: "notifications/tasks", params: { ...snapshot, _meta: meta } });
        }
        if (isTerminalTaskStatus(taskStatus(record, "modern"))) active.delete(record.id);
      };
      const refresh = async (taskId: string) => {
        if (closed || !active.has(taskId)) return;
        try {
          if (!(await deps.reauthorize())) return finish();
          const record = await readTaskHandle(deps.sql, { tenantId, taskId });
          if (closed) return;
          if (!record)
            active.delete(taskId); // expired handle: stop following it, never invent a status
          else publish(record);
        } catch (error) {
          deps.logger.warn("listen snapshot skipped: store unavailable", { taskId, error: (error as Error).message });
          return;
        }
        if (active.size === 0) finish();
      };

      send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { taskIds: [...initial.keys()] }, _meta: meta },
      });
      for (const record of initial.values()) publish(record);
      if (active.size === 0) return finish();
      for (const taskId of active) cleanups.push(feed.subscribe(taskId, () => void refresh(taskId)));
      const poll = setInterval(() => {
        for (const taskId of active) void refresh(taskId);
      }, FALLBACK_POLL_MS);
      const keepalive = setInterval(() => controller.enqueue(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS);
      cleanups.push(
        () => clearInterval(poll),
        () => clearInterval(keepalive),
      );
      call.signal.addEventListener("abort", () => {
        closed = true;
        for (const cleanup of cleanups) cleanup();
      });
    },
    cancel() {
      for (const cleanup of cleanups) cleanup();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
  });
}
