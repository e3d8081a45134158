import { bounded } from "@runifold/store";
import { getTaskFeed, isTerminalTaskStatus, readBoundTaskHandle, type TaskRecord, taskStatus } from "../../tasks";
import { holdStream } from "../credential-limits";
import { isRecord, type JsonRpcId, McpError, RPC, rpcError, rpcResult } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { hasScope, requireScope, TASK_READ_SCOPE } from "../scopes";
import { META, SERVER_INFO } from "../server-info";
import { detailedTask } from "../task-shapes";
import { type ModernEnvelope, missingTasksCapability } from "./envelope";

/** At most this many task IDs per subscription; more is -32602. */
export const MAX_TASK_IDS_PER_SUBSCRIPTION = 100;
/** A stream ends (gracefully, with the listen result) after this long; the client listens again. */
export const MAX_LISTEN_STREAM_MS = 60 * 60_000;
const FALLBACK_POLL_MS = 2_000;
const KEEPALIVE_MS = 15_000;
/** The longest one round's read may take before the round gives up on it (see readRound). */
const READ_BOUND_MS = 10_000;

/**
 * subscriptions/listen with `taskIds` (ext-tasks "Status Notifications"): an SSE stream that acks
 * the honoured subset (subscriptions.mdx: the ack "reflects the subset the server agreed to
 * honor"), sends each task's DetailedTask at once, then only changes, and detaches a task after its
 * terminal snapshot; when none are left, or the stream reaches its maximum lifetime, it ends with
 * the listen result (carrying serverInfo, basic/index.mdx). Reads of one task never overlap, so no
 * snapshot follows a terminal one. The credential (and its `tasks:read` scope) is re-checked once
 * per round; a revoked or downgraded credential ends the stream with an error, not a graceful
 * result. A store error sends nothing (no invented transitions).
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
    requireScope(call.principal, TASK_READ_SCOPE);
  }
  const ids = [...new Set((requested as string[] | undefined) ?? [])];
  const binding = { tenantId: call.principal.tenantId, keyId: call.principal.keyId };
  const sharedKey = `${binding.tenantId}/${binding.keyId}`;
  const initial = new Map<string, TaskRecord>();
  for (const taskId of ids) {
    const record = await readBoundTaskHandle(deps.sql, { ...binding, taskId });
    if (record) initial.set(taskId, record);
  }
  // One of the credential's stream slots (credential-limits.ts: 429 at RUNIFOLD_MAX_STREAMS_PER_KEY),
  // given back by cleanup however the stream ends (finished, refused, client gone, cancelled).
  const release = holdStream(deps, call);
  const meta = { [META.subscriptionId]: id };
  const feed = await getTaskFeed(deps.sql).catch((error) => {
    release();
    throw error;
  });
  const encoder = new TextEncoder();
  const cleanups: (() => void)[] = [release];
  let closed = false;
  const cleanup = () => {
    closed = true;
    for (const run of cleanups.splice(0)) run();
  };

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const lastSent = new Map<string, string>();
      // When this stream's last read of each task ended: a shared read must have started after it.
      const lastRead = new Map<string, number>();
      const active = new Set(initial.keys());
      const send = (message: unknown) => {
        if (!closed) controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
      };
      const end = (final: unknown) => {
        if (closed) return;
        send(final);
        cleanup();
        controller.close();
      };
      const finish = () => end(rpcResult(id, { resultType: "complete", _meta: { ...meta, [META.serverInfo]: SERVER_INFO } }));
      const refuse = (message: string) => end(rpcError(id, RPC.invalidRequest, message));

      // One credential check per round, shared by every task the round refreshes.
      let authorizedAt = Date.now();
      let pendingCheck: Promise<boolean> | undefined;
      const stillAuthorized = (): Promise<boolean> => {
        // Half the round: the round's own check (its timer fires ~2 s after the last) always runs.
        if (Date.now() - authorizedAt < FALLBACK_POLL_MS / 2) return Promise.resolve(true);
        pendingCheck ??= (async () => {
          const principal = await bounded(deps.reauthorize(), READ_BOUND_MS, "credential re-check");
          if (!principal) {
            refuse("The credential is no longer valid");
            return false;
          }
          if (!hasScope(principal, TASK_READ_SCOPE)) {
            refuse('The credential no longer holds the "tasks:read" scope');
            return false;
          }
          authorizedAt = Date.now();
          return true;
        })().finally(() => {
          pendingCheck = undefined;
        });
        return pendingCheck;
      };

      const publish = (record: TaskRecord) => {
        if (!active.has(record.id)) return;
        const snapshot = detailedTask(record, envelope);
        const json = JSON.stringify(snapshot);
        if (lastSent.get(record.id) !== json) {
          lastSent.set(record.id, json);
          send({ jsonrpc: "2.0", method: "notifications/tasks", params: { ...snapshot, _meta: meta } });
        }
        if (isTerminalTaskStatus(taskStatus(record, "modern"))) active.delete(record.id);
      };
      const readRound = async (taskId: string) => {
        if (!(await stillAuthorized())) return;
        // Shared with this process's other streams of the same credential on the task (task-feed.ts):
        // one read per change, not one per stream.
        const notBefore = lastRead.get(taskId) ?? 0;
        // Bounded: a read stuck on a connection that died under it (a failover) would hold this task's
        // rounds for ever, and the stream would never hear it complete; the next poll reads again.
        const record = await bounded(
          feed.read(taskId, sharedKey, { notBefore, maxAgeMs: FALLBACK_POLL_MS }, () =>
            readBoundTaskHandle(deps.sql, { ...binding, taskId }),
          ),
          READ_BOUND_MS,
          "listen snapshot read",
        );
        lastRead.set(taskId, performance.now());
        if (closed || !active.has(taskId)) return;
        if (!record)
          active.delete(taskId); // expired handle: stop following it, never invent a status
        else publish(record);
      };
      // Per task, rounds never overlap (a wake-up during a round runs one more), so snapshots go
      // out in store order and nothing can follow the terminal one.
      const rounds = new Map<string, { running: boolean; again: boolean }>();
      const refresh = async (taskId: string) => {
        if (closed || !active.has(taskId)) return;
        const state = rounds.get(taskId) ?? { running: false, again: false };
        rounds.set(taskId, state);
        if (state.running) {
          state.again = true;
          return;
        }
        state.running = true;
        try {
          do {
            state.again = false;
            if (!closed && active.has(taskId)) await readRound(taskId);
          } while (state.again);
        } catch (error) {
          deps.logger.warn("listen snapshot skipped: store unavailable", { taskId, error: (error as Error).message });
        } finally {
          state.running = false;
        }
        if (!closed && active.size === 0) finish();
      };

      send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: requested === undefined ? {} : { taskIds: [...initial.keys()] }, _meta: meta },
      });
      for (const record of initial.values()) publish(record);
      if (active.size === 0) return finish();
      for (const taskId of active) cleanups.push(feed.subscribe(taskId, () => void refresh(taskId)));
      // The fallback round: with a probing feed (task-feed.ts) a task that changed unnotified wakes
      // its subscribers like a NOTIFY, so the round only re-checks the credential; without one
      // (no LISTEN behind a transaction pooler) it re-reads every task this stream follows.
      const poll = setInterval(() => {
        if (feed.probes)
          stillAuthorized().catch((error: Error) =>
            deps.logger.warn("listen credential re-check skipped: store unavailable", { error: error.message }),
          );
        else for (const taskId of active) void refresh(taskId);
      }, FALLBACK_POLL_MS);
      const keepalive = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(": keepalive\n\n"));
      }, KEEPALIVE_MS);
      const lifetime = setTimeout(finish, MAX_LISTEN_STREAM_MS);
      cleanups.push(
        () => clearInterval(poll),
        () => clearInterval(keepalive),
        () => clearTimeout(lifetime),
      );
      call.signal.addEventListener("abort", cleanup, { once: true });
    },
    cancel: cleanup,
  });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
  });
}
