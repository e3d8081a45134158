import { TERMINAL_STATUSES } from "@runifold/sdk/states";
import { readMcpSessionStream } from "../../../db/queries/mcp-sessions";
import { getTaskFeed, type TaskRecord } from "../../tasks";
import type { McpCall, McpDeps } from "../mcp-deps";
import { hasScope, TASK_READ_SCOPE } from "../scopes";
import { META } from "../server-info";
import { openSse } from "../sse";
import { readBoundTask } from "./bound-task";
import { deliveryLedger } from "./deliveries";
import { newStreamTag } from "./elicitation-ids";
import { questionRequest } from "./question-request";
import { serialRounds } from "./serial-rounds";
import { sessionMayElicit } from "./session";
import type { LegacySession } from "./session-record";
import { withdrawQuestions } from "./withdrawal";

/** Fallback re-read (new tasks of the session are found this way; known ones also wake on NOTIFY). */
const POLL_MS = 2_000;
/** A stream that delivers nothing only checks its session (replaced? ended?) this often. */
const IDLE_CHECK_MS = 10_000;
/** The credential is re-checked this often: a revoked key ends the stream. */
const REAUTHORIZE_MS = 30_000;
/** Longest life of one stream; the client reconnects (after the `retry` we send) and gets a fresh one. */
export const STANDALONE_MAX_LIFETIME_MS = 10 * 60_000;
/**
 * How long a question must have been open (as this stream saw it) before the GET stream claims it:
 * time for a client that calls tasks/result on input_required (tasks.mdx: it SHOULD; SDK v1 does,
 * within one pollInterval of 1 s) to get it on that request's own stream, where it relates to a
 * request (transports: GET stream messages "SHOULD be unrelated to any concurrently-running
 * JSON-RPC request"). A requester that only polls tasks/get gets it here after this delay.
 */
export const TASKS_RESULT_GRACE_MS = 2_000;
/** The reconnection delay we ask for when we end a stream ourselves. */
const RECONNECT_RETRY_MS = 1_000;

/**
 * The streams one handler (one web process) holds, by session digest, so a new GET retires the old
 * one here at once; a stream on another instance notices at its next round (its slot is gone).
 */
export type LocalStreams = Map<string, () => void>;

export type StandaloneOptions = {
  streamId: string;
  local: LocalStreams;
  maxLifetimeMs?: number;
  /** Gives back the credential's stream slot (credential-limits.ts) when the stream ends, however it ends. */
  release?: () => void;
};

/** `urlKeys`: the sent keys that went out in URL mode (url-input.ts), completed rather than withdrawn once answered. */
type Watched = { sent: Set<string>; urlKeys: Set<string>; seen: Map<string, number>; unsubscribe: () => void };

/**
 * The session's standalone SSE stream (2025-11-25 basic/transports.mdx "Listening for Messages from
 * the Server"): server-initiated requests "unrelated to any concurrently-running JSON-RPC request".
 * For a session that declared elicitation (and a credential with `tasks:read`) it carries the open
 * questions of the tasks created in THIS session (mcp_session_tasks) by this credential, read
 * through the task binding — tasks.mdx "Input Required Status": clients "SHOULD expect messages to
 * be delivered on any SSE stream, including the HTTP GET stream", which is where a requester that
 * only polls tasks/get until terminal (ext-tasks 0.2) finds them. Each question:
 *  - goes out once per stream as `elicitation/create` with `_meta["io.modelcontextprotocol/related-task"]`
 *    (tasks.mdx "Associating Task-Related Messages": MUST) and the ID `rf-input:<task>:<key>`, so the
 *    client's response, POSTed to any instance, is written by client-responses.ts (validated, the
 *    answering credential as actor);
 *  - only after it has been open TASKS_RESULT_GRACE_MS, and only once this stream claimed it
 *    (deliveries.ts), so a tasks/result stream carrying it already keeps it, and no message is sent
 *    on two streams ("Multiple Connections": MUST NOT broadcast);
 *  - when answered elsewhere (the console, tasks/update, another client of the key) or abandoned (the
 *    task ended) after we sent it, is withdrawn with `notifications/cancelled` (basic/utilities/
 *    cancellation: either side MAY cancel a request it issued), unless this credential answered it.
 * A re-opened stream sends the questions still open again (the client may have lost them).
 *
 * Otherwise the stream only keeps alive. It ends (the client reconnects) when a newer GET of the
 * session replaces it (one stream per session: the newest wins, on any instance), when the session
 * ends or expires, when the credential is revoked, and after STANDALONE_MAX_LIFETIME_MS, with an SSE
 * `retry` before the close ("If the server closes the connection … it SHOULD … send a retry field").
 * It never carries a JSON-RPC response (none is resumable here: no event IDs are issued).
 */
export function streamStandalone(deps: McpDeps, call: McpCall, session: LegacySession, options: StandaloneOptions): Response {
  const sse = openSse(call.signal);
  // This stream's questions go out under IDs of their own (elicitation-ids.ts, review3 D9).
  const streamTag = newStreamTag();
  if (options.release) sse.onClose(options.release);
  const maxLifetimeMs = options.maxLifetimeMs ?? STANDALONE_MAX_LIFETIME_MS;
  const delivering = sessionMayElicit(session) && hasScope(call.principal, TASK_READ_SCOPE);
  const ledger = deliveryLedger(deps.sql, {
    sessionIdSha256: session.idSha256,
    standalone: true,
    streamId: options.streamId,
    onError: (error) => deps.logger.warn("standalone stream: delivery claims not released", { error: error.message }),
  });
  /** Per task we watch: what this stream sent, when it first saw each open key, its NOTIFY subscription. */
  const watched = new Map<string, Watched>();
  let wakeTimer: ReturnType<typeof setTimeout> | undefined;
  const wakeIn = (ms: number) => {
    if (wakeTimer) return;
    wakeTimer = setTimeout(() => {
      wakeTimer = undefined;
      void refresh();
    }, ms);
  };
  let authorizedAt = Date.now();

  options.local.get(session.idSha256)?.();
  const retire = () => sse.close();
  options.local.set(session.idSha256, retire);
  sse.onClose(() => {
    if (options.local.get(session.idSha256) === retire) options.local.delete(session.idSha256);
    clearTimeout(wakeTimer);
    for (const task of watched.values()) task.unsubscribe();
    watched.clear();
    void ledger.release();
    deps.logger.debug("standalone stream closed", { keyId: call.principal.keyId });
  });
  const end = () => {
    sse.retry(RECONNECT_RETRY_MS);
    sse.close();
  };

  const relatedTask = (taskId: string) => ({ [META.relatedTask]: { taskId } });
  const withdraw = async (taskId: string, keys: string[], urlKeys: Set<string>) => {
    await withdrawQuestions(sse, ledger, {
      actor: call.principal.actor,
      runId: taskId,
      keys,
      streamTag,
      meta: relatedTask(taskId),
      urlKeys,
    });
    for (const key of keys) urlKeys.delete(key);
  };

  const deliver = async (taskId: string, record: TaskRecord | undefined, { sent, urlKeys, seen }: Watched) => {
    const pending = record?.pendingInputs ?? {};
    const now = Date.now();
    for (const key of seen.keys()) if (!(key in pending)) seen.delete(key);
    const gone = [...sent].filter((key) => !(key in pending));
    for (const key of gone) sent.delete(key);
    await withdraw(taskId, gone, urlKeys);
    const question = (key: string) => {
      const request = pending[key];
      return request && questionRequest(session, deps.publicUrl, { taskId, key, streamTag }, request, relatedTask(taskId));
    };
    const candidates = Object.keys(pending).filter((key) => {
      if (sent.has(key) || question(key) === undefined) return false;
      const firstSeen = seen.get(key) ?? now;
      seen.set(key, firstSeen);
      const wait = firstSeen + TASKS_RESULT_GRACE_MS - now;
      if (wait > 0) wakeIn(wait);
      return wait <= 0;
    });
    if (candidates.length === 0) return;
    for (const key of await ledger.claim(taskId, candidates)) {
      const request = question(key);
      if (sse.closed || !request || sent.has(key)) continue;
      sent.add(key);
      if (request.url) urlKeys.add(key);
      sse.send(request.message);
    }
  };

  const round = async () => {
    if (Date.now() - authorizedAt >= REAUTHORIZE_MS) {
      if (!(await deps.reauthorize())) {
        deps.logger.info("standalone stream ended: the credential is no longer valid", { keyId: call.principal.keyId });
        return sse.close();
      }
      authorizedAt = Date.now();
    }
    const state = await readMcpSessionStream(deps.sql, {
      idSha256: session.idSha256,
      tenantId: call.principal.tenantId,
      keyId: call.principal.keyId,
      streamId: options.streamId,
      terminalStatuses: TERMINAL_STATUSES,
    });
    // Replaced by a newer GET of the session (on any instance), or the session ended or expired.
    if (!state.current) return end();
    if (!delivering || sse.closed) return;
    const feed = await getTaskFeed(deps.sql);
    const open = new Set(state.runIds);
    for (const [taskId, task] of watched) {
      if (open.has(taskId)) continue;
      // Terminal (or purged): whatever we sent for it is withdrawn, and we stop watching it.
      task.unsubscribe();
      watched.delete(taskId);
      await withdraw(taskId, [...task.sent], task.urlKeys);
    }
    for (const taskId of open) {
      let task = watched.get(taskId);
      if (!task) {
        task = {
          sent: new Set(),
          urlKeys: new Set(),
          seen: new Map(),
          unsubscribe: feed.subscribe(taskId, () => void refresh()),
        };
        watched.set(taskId, task);
      }
      if (sse.closed) return;
      await deliver(taskId, await readBoundTask(deps.sql, call.principal, taskId), task);
    }
    await ledger.renewIfDue();
  };

  // Rounds never overlap, so messages go out in store order; a wake-up during a round runs one more.
  const refresh = serialRounds(
    async () => {
      if (!sse.closed) await round();
    },
    (error) => deps.logger.warn("standalone stream round skipped: store unavailable", { error: error.message }),
  );

  const poll = setInterval(() => void refresh(), delivering ? POLL_MS : IDLE_CHECK_MS);
  sse.onClose(() => clearInterval(poll));
  const lifetime = setTimeout(end, maxLifetimeMs);
  sse.onClose(() => clearTimeout(lifetime));
  // Sends the headers now (a stream may have nothing to say for a long time).
  sse.comment("stream open");
  void refresh();
  return sse.response;
}
