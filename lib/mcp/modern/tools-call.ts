import type { InputRequest, InputResponse } from "@runifold/sdk";
import type { RouteRow } from "../../../db/queries/routes";
import { tenantOffersHandles } from "../../../db/queries/tenants";
import { validateArguments, validateInputResponse } from "../../tasks";
import { holdWait } from "../credential-limits";
import { isElicitResult } from "../elicit-result";
import { answerCompanionCall } from "../handles/companion-call";
import { isCompanionTool } from "../handles/companion-tools";
import { answerableInputRequests } from "../input-capabilities";
import { missingForQuestions, routeMayAsk } from "../input-gate";
import { isRecord, type JsonRpcId } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { answerWithProgress, type ProgressSink, readProgressToken } from "../progress-answer";
import { issueRequestState, redeemRequestState, type StateCall, type StateClaims } from "../request-state";
import { requireScope, TASK_CREATION_SCOPE } from "../scopes";
import { TASKS_EXTENSION, withServerInfo } from "../server-info";
import { taskFields } from "../task-shapes";
import { readArguments, readIdempotencyKey, resolveTool, startTask } from "../tool-invocation";
import { urlCapable } from "../url-input";
import { type ModernEnvelope, missingCapabilities } from "./envelope";
import { continueOrdinaryCall, startOrdinaryCall } from "./ordinary-call";

/**
 * tools/call on the 2026-07-28 wire. The server decides (ext-tasks "Task Creation"): a route with
 * task support `forbidden` always answers synchronously; `optional` becomes a task only when this
 * request declared the extension; `required` without it is -32021. A legacy `params.task` is
 * ignored. Workflows with preflight inputs first go through MRTR rounds (SEP-2322). A call that
 * does not become a task takes the ordinary path (ordinary-call.ts): it waits for the run, asks the
 * run's questions as MRTR rounds bound to the run, and a disconnect cancels the run.
 *
 * Capability gating (basic/index.mdx "MUST NOT rely on capabilities the client has not declared"):
 * a call whose workflow may ask its caller for input this request cannot answer is refused with
 * -32021 before anything runs, and `requiredCapabilities` lists only what is actually missing.
 */
export async function toolsCall(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  params: Record<string, unknown>,
  envelope: ModernEnvelope,
) {
  // The companion tools of task handles come first (a tenant that turned handles off has none).
  if (isCompanionTool(params.name) && (await tenantOffersHandles(deps.sql, call.principal.tenantId))) {
    const complete = (result: unknown) => ({ resultType: "complete", ...(result as object) });
    const answered = await answerCompanionCall(deps, call, {
      id,
      name: params.name,
      params,
      frame: (result) => withServerInfo(complete(result)),
    });
    return answered instanceof Response ? answered : complete(answered);
  }
  // Every call of a route starts a run, ordinary or task (scopes.ts): refused before anything is read.
  requireScope(call.principal, TASK_CREATION_SCOPE);
  const route = await resolveTool(deps, call.principal, params.name, call);
  const args = readArguments(params);
  const asTask = envelope.declaresTasks && route.task_support !== "forbidden";
  await refuseMissingCapabilities(deps, call, route, envelope, asTask);

  // Arguments are checked before any preflight round: nobody is asked to approve a call that cannot run.
  const checked = validateArguments(route.tool_name, route.input_schema, args);
  if (!checked.ok) return { resultType: "complete", content: [{ type: "text", text: checked.message }], isError: true };
  if (asTask && params.requestState === undefined) return answerCall(deps, call, route, args, params, envelope, asTask);
  // An ordinary call holds the request until its run answers: one of the credential's wait slots
  // (credential-limits.ts; 429 when full). Taken before a requestState is redeemed (single use), so
  // a refused retry may present it again, and before any run starts or any answer is written. With
  // a progressToken the answer is an SSE stream carrying the run's progress (progress-answer.ts).
  const release = holdWait(deps, call);
  try {
    return await answerWithProgress(deps, call, { id, progressToken: readProgressToken(params), frame: withServerInfo }, (sink) =>
      answerCall(deps, call, route, args, params, envelope, asTask, sink).finally(release),
    );
  } catch (error) {
    release();
    throw error;
  }
}

async function answerCall(
  deps: McpDeps,
  call: McpCall,
  route: RouteRow,
  args: Record<string, unknown>,
  params: Record<string, unknown>,
  envelope: ModernEnvelope,
  asTask: boolean,
  sink?: ProgressSink,
) {
  const binding: StateCall = { tenantId: call.principal.tenantId, keyId: call.principal.keyId, tool: route.tool_name, args };
  // A presented requestState is redeemed once, here (single use), and says which round it answers:
  // an ordinary call's run-bound round (claim `r`), or a preflight round.
  const state = params.requestState === undefined ? undefined : await redeemRequestState(deps.sql, params.requestState, binding);
  if (state?.r)
    return continueOrdinaryCall(
      deps,
      call,
      route,
      args,
      envelope,
      { runId: state.r, nonce: state.n },
      params.inputResponses,
      sink,
    );
  // Only the preflight questions this request can be asked go into rounds (mrtr.mdx Server
  // Requirements 7); the run asks the others itself, and they reach the client in its handle.
  const preflight = answerableInputRequests((route.preflight ?? {}) as Record<string, InputRequest>, envelope.clientCapabilities);
  const answeredInputs = await collectPreflight(deps, params, binding, preflight, state);
  if ("inputRequired" in answeredInputs) return answeredInputs.inputRequired;

  const idempotencyKey = readIdempotencyKey(params);
  if (!asTask)
    return startOrdinaryCall(deps, call, route, args, envelope, { answeredInputs: answeredInputs.answers, idempotencyKey }, sink);
  const started = await startTask(deps, call, route, args, {
    origin: "modern",
    answeredInputs: answeredInputs.answers,
    idempotencyKey,
  });
  if (started.kind === "invalid") return { resultType: "complete", ...started.result };
  // Flat CreateTaskResult, sent only now that the run is committed (tasks/get on it already resolves).
  return { resultType: "task", ...taskFields(started.task, "modern") };
}

/**
 * -32021 before anything runs (2026-07-28 basic/index.mdx: "If processing a request requires a
 * capability the client did not include … MUST return -32021"), listing only what is missing: the
 * tasks extension for a `required` tool; form elicitation when the workflow DECLARES it may ask
 * questions (input-gate.ts) and this request could not be asked them — as a task (its questions
 * would sit in `inputRequests` the client cannot answer), or on the ordinary path of a tenant that
 * turned task handles off (review3 D8: the same rule as for tasks, stated in docs/clients.md). With
 * handles on, an ordinary call needs no capability for questions: they come back in the handle. An
 * ordinary call from a client that declared URL-mode elicitation can be asked them in URL mode
 * when this server has a public URL (url-input.ts), so it needs nothing either; a task's questions
 * go out in form mode only (tasks/get's inputRequests).
 */
async function refuseMissingCapabilities(
  deps: McpDeps,
  call: McpCall,
  route: RouteRow,
  envelope: ModernEnvelope,
  asTask: boolean,
): Promise<void> {
  const required: Record<string, unknown> = {};
  if (route.task_support === "required" && !envelope.declaresTasks) required.extensions = { [TASKS_EXTENSION]: {} };
  const urlAsks = !asTask && deps.publicUrl !== undefined && urlCapable(envelope.clientCapabilities);
  const forQuestions = routeMayAsk(route) && !urlAsks ? missingForQuestions(envelope.clientCapabilities) : {};
  if (Object.keys(forQuestions).length > 0) {
    const handles = !asTask && (await tenantOffersHandles(deps.sql, call.principal.tenantId));
    if (!handles) Object.assign(required, forQuestions);
  }
  if (Object.keys(required).length > 0) throw missingCapabilities(required);
}

type Preflight =
  | { inputRequired: { resultType: "input_required"; inputRequests: Record<string, InputRequest>; requestState: string } }
  | { answers?: Record<string, { request: unknown; response: unknown }> };

/**
 * MRTR rounds for the preflight requests. Answers accepted in earlier rounds come back inside the
 * HMAC'd requestState (request-state.ts), so each retry only has to answer what it was just asked
 * (mrtr.mdx); an answer that fails its request's requestedSchema is not accepted and the key is
 * asked again. The run starts once every key is answered and the last state is redeemed.
 */
async function collectPreflight(
  deps: McpDeps,
  params: Record<string, unknown>,
  binding: StateCall,
  preflight: Record<string, InputRequest> | undefined,
  state: StateClaims | undefined,
): Promise<Preflight> {
  if (!preflight || Object.keys(preflight).length === 0) return {};
  // The presented state was redeemed (single use) by the caller, so its carried answers can be trusted.
  const carried = state?.a ?? {};
  const responses = isRecord(params.inputResponses) ? params.inputResponses : {};
  const accepted: Record<string, InputResponse> = {};
  for (const [key, request] of Object.entries(preflight)) {
    const response = responses[key] ?? carried[key];
    if (isElicitResult(response) && validateInputResponse(key, request, response).ok) accepted[key] = response;
  }
  if (Object.keys(accepted).length === Object.keys(preflight).length) {
    // Every key answered without any state (a first request that guessed the questions): refused as before.
    if (params.requestState === undefined) await redeemRequestState(deps.sql, undefined, binding);
    return {
      answers: Object.fromEntries(
        Object.entries(accepted).map(([key, response]) => [key, { request: preflight[key], response }]),
      ),
    };
  }
  const outstanding = Object.fromEntries(Object.entries(preflight).filter(([key]) => !(key in accepted)));
  return {
    inputRequired: {
      resultType: "input_required",
      inputRequests: outstanding,
      requestState: await issueRequestState(deps.sql, binding, accepted),
    },
  };
}
