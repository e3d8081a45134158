import { bounded } from "@runifold/store";
import { dropProgressMark, raiseProgressMark } from "../../../db/queries/mcp-ordinary-calls";
import type { TaskRecord } from "../../tasks";
import { getTaskFeed } from "../../tasks";
import { holdStream } from "../credential-limits";
import { type JsonRpcId, RPC, rpcError } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { META } from "../server-info";
import { openSse } from "../sse";
import { isTerminalRecord, legacyTask, readBoundTask, taskNotFound } from "./bound-task";
import { deliveryLedger } from "./deliveries";
import { newStreamTag } from "./elicitation-ids";
import { questionRequest } from "./question-request";
import { serialRounds } from "./serial-rounds";
import { terminalAnswer } from "./terminal-answer";
import { withdrawQuestions } from "./withdrawal";

/** Fallback re-read when a change notification is missed (LISTEN reconnects, lost NOTIFY). */
const POLL_MS = 2_000;
/** Long waits re-check the API key now and then, so a revoked key stops receiving questions. */
const REAUTHORIZE_MS = 30_000;
/** The longest one round's read may take before the round gives up on it. */
const READ_BOUND_MS = 10_000;

/**
 * The SSE form of a blocking tasks/result (2025-11-25 "Input Required Status"). Until the task is
 * terminal, every change re-reads the store (a notification only says "look again") and sends:
 *  - each unanswered input request as an `elicitation/create` request, once per stream and only on
 *    one of the client's streams (deliveries.ts: claimed first, so the standalone GET stream or another
 *    tasks/result does not send it too), with the
 *    related-task `_meta` (MUST, L15) and an ID derived from task + key, so the client's response
 *    may reach any instance (client-responses.ts); questions that appear later are sent as they appear.
 *    Only to a client whose session declared elicitation in that request's mode (session.ts
 *    sessionCanAsk; 2025-11-25 client/elicitation.mdx: MUST NOT send undeclared modes) — without a
 *    session the stream carries status and the result only, and the question waits for tasks/update
 *    or an operator;
 *  - `notifications/cancelled` withdrawing a question it sent that is no longer open (answered
 *    elsewhere, the task ended), unless this credential answered it (withdrawal.ts);
 *  - `notifications/tasks/status` with the full Task on each status change (optional; without
 *    related-task `_meta`, which it SHOULD NOT carry);
 *  - `notifications/progress` with the caller's original progressToken, which stays valid until the
 *    task is terminal (L20) — only values above any sent for the task before, on this or an earlier
 *    stream (mcp_progress_marks), never after the terminal state;
 * and finally the terminal answer, which ends the stream. A store error skips a round (it never
 * invents a transition); the next notification or poll tries again.
 */
export async function streamTaskResult(deps: McpDeps, call: McpCall, id: JsonRpcId, initial: TaskRecord): Promise<Response> {
  const taskId = initial.id;
  const progressToken = await readProgressToken(deps, call, taskId);
  const feed = await getTaskFeed(deps.sql);
  // Nothing awaited from here to sse.onClose, so the slot cannot leak (credential-limits.ts: 429 when full).
  const release = holdStream(deps, call);
  const sse = openSse(call.signal);
  // This stream's questions go out under IDs of their own (elicitation-ids.ts, review3 D9).
  const streamTag = newStreamTag();
  sse.onClose(release);
  const relatedTask = { [META.relatedTask]: { taskId } };
  const askedKeys = new Set<string>();
  // Of those, the ones sent in URL mode (url-input.ts): completed, not withdrawn, once answered.
  const urlKeys = new Set<string>();
  let lastStatus = "";
  let lastProgress = Number.NEGATIVE_INFINITY;
  let authorizedAt = Date.now();

  const publish = (record: TaskRecord) => {
    const task = legacyTask(record);
    const status = JSON.stringify([task.status, task.statusMessage]);
    if (status !== lastStatus) {
      lastStatus = status;
      sse.send({ jsonrpc: "2.0", method: "notifications/tasks/status", params: task });
    }
    if (isTerminalRecord(record)) {
      sse.send(terminalAnswer(id, record));
      sse.close();
      // Nothing more is sent for the token: its mark has served (best effort, a leftover row is inert).
      if (progressToken !== undefined) void dropProgressMark(deps.sql, taskId).catch(() => {});
    }
  };

  // One sequence per token across all of the task's streams (progress.mdx: "MUST increase with each
  // notification"): a value goes out only once it raised the task's stored mark, so a re-opened
  // stream neither repeats the last value sent nor sends a lower one (a workflow may report less).
  const sendProgress = async (record: TaskRecord) => {
    const progress = record.progress;
    if (progressToken === undefined || !progress || progress.progress <= lastProgress) return;
    lastProgress = progress.progress;
    if (!(await raiseProgressMark(deps.sql, { runId: taskId, progress: progress.progress })) || sse.closed) return;
    sse.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, ...progress, _meta: relatedTask } });
  };

  // Questions go out only once claimed for this stream (deliveries.ts): the session's standalone GET
  // stream, or a second tasks/result, may see them too, and only one stream may carry each.
  const ledger = call.session
    ? deliveryLedger(deps.sql, {
        sessionIdSha256: call.session.idSha256,
        standalone: false,
        onError: (error) => deps.logger.warn("tasks/result: delivery claims not released", { taskId, error: error.message }),
      })
    : undefined;
  sse.onClose(() => void ledger?.release());
  const ask = async (record: TaskRecord) => {
    const pending = record.pendingInputs ?? {};
    // Only what the session declared (mode included, or URL mode standing for a form); the rest waits for other channels.
    const question = (key: string) => {
      const request = pending[key];
      return request && questionRequest(call.session, deps.publicUrl, { taskId, key, streamTag }, request, relatedTask);
    };
    const candidates = Object.keys(pending).filter((key) => !askedKeys.has(key) && question(key) !== undefined);
    if (!ledger || candidates.length === 0) return;
    for (const key of await ledger.claim(taskId, candidates)) {
      const request = question(key);
      if (sse.closed || !request || askedKeys.has(key)) continue;
      askedKeys.add(key);
      if (request.url) urlKeys.add(key);
      sse.send(request.message);
    }
  };

  const readRound = async () => {
    if (Date.now() - authorizedAt > REAUTHORIZE_MS) {
      if (!(await bounded(deps.reauthorize(), READ_BOUND_MS, "credential re-check"))) {
        sse.send(rpcError(id, RPC.invalidRequest, "The API key is no longer valid"));
        return sse.close();
      }
      authorizedAt = Date.now();
    }
    // Bounded: a read stuck on a connection that died under it (a failover) would hold every later
    // round (they never overlap); the next notification or poll reads again.
    const record = await bounded(readBoundTask(deps.sql, call.principal, taskId), READ_BOUND_MS, "tasks/result read");
    if (sse.closed) return;
    if (!record) {
      // Expired (ttl counts from creation, whatever the status) or purged: now an unknown ID.
      const error = taskNotFound();
      sse.send(rpcError(id, error.code, error.message));
      return sse.close();
    }
    // A question sent here and no longer open (answered elsewhere, or the task ended) is withdrawn
    // before anything else of this round goes out (withdrawal.ts).
    const gone = [...askedKeys].filter((key) => !(key in (record.pendingInputs ?? {})));
    for (const key of gone) askedKeys.delete(key);
    if (ledger && gone.length > 0)
      await withdrawQuestions(sse, ledger, {
        actor: call.principal.actor,
        runId: taskId,
        keys: gone,
        streamTag,
        meta: relatedTask,
        urlKeys,
      });
    for (const key of gone) urlKeys.delete(key);
    publish(record);
    if (sse.closed) return;
    await sendProgress(record);
    await ledger?.renewIfDue();
    await ask(record);
  };

  // Rounds never overlap, so messages go out in store order; a wake-up during a round runs one more.
  const refresh = serialRounds(
    async () => {
      if (!sse.closed) await readRound();
    },
    (error) => deps.logger.warn("tasks/result round skipped: store unavailable", { taskId, error: error.message }),
  );

  sse.onClose(feed.subscribe(taskId, () => void refresh()));
  const poll = setInterval(() => void refresh(), POLL_MS);
  sse.onClose(() => clearInterval(poll));
  publish(initial);
  // Anything that changed between the first read and the subscription is caught by this round, which
  // also claims and sends the questions open now.
  void refresh();
  return sse.response;
}

async function readProgressToken(deps: McpDeps, call: McpCall, taskId: string): Promise<string | number | undefined> {
  const rows = await deps.sql.unsafe<{ progress_token: unknown }[]>(
    "SELECT progress_token FROM runs WHERE id = $1 AND tenant_id = $2",
    [taskId, call.principal.tenantId],
  );
  const token = rows[0]?.progress_token;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}
