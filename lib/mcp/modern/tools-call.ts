import type { InputRequest, InputResponse } from "@runifold/sdk";
import { validateArguments } from "../../tasks";
import { isRecord, McpError, RPC } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { issueRequestState, redeemRequestState } from "../request-state";
import { requireScope } from "../scopes";
import { TASKS_EXTENSION } from "../server-info";
import { taskFields } from "../task-shapes";
import { readArguments, readIdempotencyKey, resolveTool, runToCompletion, startTask } from "../tool-invocation";
import { type ModernEnvelope, missingTasksCapability } from "./envelope";

/**
 * tools/call on the 2026-07-28 wire. The server decides (ext-tasks "Task Creation"): a route with
 * task support `forbidden` always answers synchronously; `optional` becomes a task only when this
 * request declared the extension; `required` without it is -32021. A legacy `params.task` is
 * ignored. Workflows with preflight inputs first go through MRTR rounds (SEP-2322).
 */
export async function toolsCall(deps: McpDeps, call: McpCall, params: Record<string, unknown>, envelope: ModernEnvelope) {
  const route = await resolveTool(deps, call.principal, params.name);
  const args = readArguments(params);
  if (route.task_support === "required" && !envelope.declaresTasks) throw missingTasksCapability();

  // Arguments are checked before any preflight round: nobody is asked to approve a call that cannot run.
  const checked = validateArguments(route.tool_name, route.input_schema, args);
  if (!checked.ok) return { resultType: "complete", content: [{ type: "text", text: checked.message }], isError: true };
  const preflight = (route.preflight ?? undefined) as Record<string, InputRequest> | undefined;
  const answeredInputs = await collectPreflight(deps, call, params, envelope, route.tool_name, args, preflight);
  if ("inputRequired" in answeredInputs) return answeredInputs.inputRequired;

  const asTask = envelope.declaresTasks && route.task_support !== "forbidden";
  const idempotencyKey = readIdempotencyKey(params);
  if (!asTask) {
    const result = await runToCompletion(deps, call, route, args, answeredInputs.answers, idempotencyKey);
    return { resultType: "complete", ...result };
  }
  requireScope(call.principal, "tasks:write");
  const started = await startTask(deps, call, route, args, {
    origin: "modern",
    answeredInputs: answeredInputs.answers,
    idempotencyKey,
  });
  if (started.kind === "invalid") return { resultType: "complete", ...started.result };
  // Flat CreateTaskResult, sent only now that the run is committed (tasks/get on it already resolves).
  return { resultType: "task", ...taskFields(started.task, "modern") };
}

type Preflight =
  | { inputRequired: { resultType: "input_required"; inputRequests: Record<string, InputRequest>; requestState: string } }
  | { answers?: Record<string, { request: unknown; response: unknown }> };

async function collectPreflight(
  deps: McpDeps,
  call: McpCall,
  params: Record<string, unknown>,
  envelope: ModernEnvelope,
  tool: string,
  args: Record<string, unknown>,
  preflight: Record<string, InputRequest> | undefined,
): Promise<Preflight> {
  if (!preflight || Object.keys(preflight).length === 0) return {};
  const responses = isRecord(params.inputResponses) ? params.inputResponses : {};
  const answers: Record<string, { request: unknown; response: unknown }> = {};
  for (const [key, request] of Object.entries(preflight)) {
    const response = responses[key];
    if (isElicitResult(response)) answers[key] = { request, response };
  }
  const binding = { tenantId: call.principal.tenantId, keyId: call.principal.keyId, tool, args };
  if (Object.keys(answers).length === Object.keys(preflight).length) {
    await redeemRequestState(deps.sql, params.requestState, binding);
    return { answers };
  }
  // MRTR may only ask for what this request declared it can answer.
  if (!envelope.declaresElicitation) {
    throw new McpError(
      RPC.missingCapability,
      "Missing required client capability",
      {
        requiredCapabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } },
      },
      400,
    );
  }
  const outstanding = Object.fromEntries(Object.entries(preflight).filter(([key]) => !(key in answers)));
  return {
    inputRequired: {
      resultType: "input_required",
      inputRequests: outstanding,
      requestState: await issueRequestState(deps.sql, binding),
    },
  };
}

export function isElicitResult(value: unknown): value is InputResponse {
  if (!isRecord(value)) return false;
  if (value.action !== "accept" && value.action !== "decline" && value.action !== "cancel") return false;
  return value.content === undefined || isRecord(value.content);
}
