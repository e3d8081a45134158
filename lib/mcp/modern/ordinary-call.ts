import type { InputResponse } from "@runifold/sdk";
import type { RouteRow } from "../../../db/queries/routes";
import { tenantOffersHandles } from "../../../db/queries/tenants";
import { answerTaskByHandle, cancelTaskByHandle, readBoundTaskHandle, type TaskRecord, validateInputResponse } from "../../tasks";
import { isElicitResult } from "../elicit-result";
import { isRecord, McpError, RPC } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { followTask, type ProgressSink } from "../progress-answer";
import { issueRequestStateWithClaims, type StateCall } from "../request-state";
import { isOver, ordinaryAnswer, startTask, syncDeadlineMs } from "../tool-invocation";
import { askableRequests, askMode } from "../url-input";
import { closeRound, recordRound } from "./abandoned-rounds";
import type { ModernEnvelope } from "./envelope";

/**
 * The ordinary path of the 2026-07-28 leg: a tools/call that does not become a task still runs as a
 * durable run, and the request waits for it up to the route's sync deadline. Then:
 *  - the run finished → its result (or its JSON-RPC error);
 *  - the run asks for input this request declared it can answer (its per-request capabilities,
 *    mode included; mrtr.mdx Server Requirements 7) → an `input_required` MRTR round with those
 *    `inputRequests` — a question a URL-only client cannot see as a form goes out in URL mode, naming
 *    its console page (url-input.ts) — and a `requestState` bound to the run (request-state.ts claim `r`, plus the
 *    usual tenant, key, tool, arguments, expiry and single-use nonce). The client's retry carries
 *    `inputResponses`, which are written through provideInputForTenant (continueOrdinaryCall), and the
 *    retry waits again: maybe another round, then the result. Questions the request cannot answer
 *    are never put in a round; they wait for an operator or a tasks client;
 *  - the run asks what this request cannot be asked, and the tenant offers handles → the task
 *    handle at once (handles/task-handle.ts; the client answers with runifold_task_answer);
 *  - the deadline passed → the task handle (or, where the tenant turned handles off, the "still
 *    running, task X" tool error); the run goes on.
 * The run's rising progress goes out as notifications/progress when the call carried a
 * progressToken (progress-answer.ts).
 * A client that disconnects while waiting cancels the run: 2026-07-28 basic/patterns/cancellation.mdx
 * "The server MUST treat a client disconnect as cancellation of that request", and
 * transports/streamable-http.mdx "Cancellation" (the server SHOULD stop work on it). Handing back an
 * input_required round is not a disconnect; but a client that never retries it abandons the run,
 * which is cancelled once the round's requestState expires unless an operator answered meanwhile
 * (abandoned-rounds.ts; review3 D3).
 *
 * URL mode (2026-07-28 client/elicitation.mdx "URL Mode Flow"): the retry's `accept` for a URL-mode
 * key is the user's consent to open the page, never the answer ("the server determines … whether the
 * out-of-band interaction has completed … It may need to block until the request is fulfilled"): the
 * retry waits, up to the sync deadline, for someone to answer on the page (or anywhere else), then
 * answers the result, another round, or the handle.
 */
export async function startOrdinaryCall(
  deps: McpDeps,
  call: McpCall,
  route: RouteRow,
  args: Record<string, unknown>,
  envelope: ModernEnvelope,
  options: { answeredInputs?: Record<string, { request: unknown; response: unknown }>; idempotencyKey?: string },
  sink?: ProgressSink,
) {
  const started = await startTask(deps, call, route, args, { origin: "ordinary", ...options });
  if (started.kind === "invalid") return { resultType: "complete", ...started.result };
  return waitRound(deps, call, route, args, envelope, started.task.id, sink);
}

/**
 * The retry of an input_required round (its requestState, already redeemed, named `runId`): the
 * answers to the keys still pending are checked against their requestedSchema and written through
 * provideInput as this credential's actor; an invalid or missing answer is simply asked again in the
 * next round (mrtr.mdx "Error Handling": respond with a new InputRequiredResult rather than an error).
 */
export async function continueOrdinaryCall(
  deps: McpDeps,
  call: McpCall,
  route: RouteRow,
  args: Record<string, unknown>,
  envelope: ModernEnvelope,
  round: { runId: string; nonce: string },
  inputResponses: unknown,
  sink?: ProgressSink,
) {
  const { runId } = round;
  await closeRound(deps.sql, round.nonce);
  const binding = { tenantId: call.principal.tenantId, keyId: call.principal.keyId, taskId: runId };
  const record = await readBoundTaskHandle(deps.sql, binding);
  if (!record) throw new McpError(RPC.invalidParams, "Invalid or expired requestState");
  const pending = record.pendingInputs ?? {};
  const responses: Record<string, InputResponse> = {};
  // Keys this client can only have been sent in URL mode: its response is consent (or refusal) to open the page.
  const consented = new Set<string>();
  for (const [key, value] of Object.entries(isRecord(inputResponses) ? inputResponses : {})) {
    const request = pending[key];
    if (!request || !isElicitResult(value)) continue;
    if (askMode(envelope.clientCapabilities, request, deps.publicUrl) === "url") consented.add(key);
    else if (validateInputResponse(key, request, value).ok) responses[key] = value;
  }
  if (Object.keys(responses).length > 0) {
    await answerTaskByHandle(deps.sql, { ...binding, responses, actor: call.principal.actor });
  }
  return waitRound(deps, call, route, args, envelope, runId, sink, consented);
}

async function waitRound(
  deps: McpDeps,
  call: McpCall,
  route: RouteRow,
  args: Record<string, unknown>,
  envelope: ModernEnvelope,
  runId: string,
  sink: ProgressSink | undefined,
  /** URL-mode keys whose page the client opened: awaited, not asked again (see above). */
  consented: ReadonlySet<string> = new Set(),
) {
  const askable = (record: TaskRecord) =>
    askableRequests(record.pendingInputs ?? {}, envelope.clientCapabilities, {
      publicUrl: deps.publicUrl,
      taskId: runId,
      skip: consented,
    });
  // A question this request can be sent in no mode (and whose page it is not waiting on).
  const unaskable = (record: TaskRecord) => {
    const asked = askable(record);
    return Object.keys(record.pendingInputs ?? {}).some((key) => !consented.has(key) && !(key in asked));
  };
  // Where the tenant offers handles, a question this request cannot be asked ends the wait at once
  // with the handle (answered through runifold_task_answer); otherwise an operator may answer it in time.
  const handles = await tenantOffersHandles(deps.sql, call.principal.tenantId);
  const record = await followTask(deps, call, {
    taskId: runId,
    done: (r) => isOver(r) || Object.keys(askable(r)).length > 0 || (handles && unaskable(r)),
    deadline: Date.now() + syncDeadlineMs(route),
    sink,
  });
  if (call.signal.aborted && record && !isOver(record)) {
    await cancelTaskByHandle(deps.sql, {
      tenantId: call.principal.tenantId,
      keyId: call.principal.keyId,
      taskId: runId,
      actor: call.principal.actor,
    });
    deps.logger.info("ordinary call cancelled: the client disconnected", { taskId: runId });
    // Nobody reads this answer (MUST NOT send further messages for a cancelled request anyway).
    throw new McpError(RPC.internalError, "Request cancelled");
  }
  if (record && !isOver(record)) {
    const inputRequests = askable(record);
    if (Object.keys(inputRequests).length > 0) {
      const state: StateCall = { tenantId: call.principal.tenantId, keyId: call.principal.keyId, tool: route.tool_name, args };
      const issued = await issueRequestStateWithClaims(deps.sql, state, undefined, runId);
      // Open until retried; if it expires unretried, the run is cancelled (abandoned-rounds.ts, D3).
      await recordRound(deps.sql, {
        nonce: issued.claims.n,
        runId,
        tenantId: call.principal.tenantId,
        keys: Object.keys(inputRequests),
        expiresAt: issued.claims.exp,
      });
      return { resultType: "input_required", inputRequests, requestState: issued.state };
    }
  }
  return { resultType: "complete", ...ordinaryAnswer(record, runId, { route, handles }) };
}
