import { linkMcpSessionTask } from "../../../db/queries/mcp-sessions";
import { tenantOffersHandles } from "../../../db/queries/tenants";
import { holdStream, holdWait } from "../credential-limits";
import { answerCompanionCall } from "../handles/companion-call";
import { isCompanionTool } from "../handles/companion-tools";
import { isRecord, type JsonRpcId, McpError, RPC } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { answerWithProgress, type ProgressSink, readProgressToken } from "../progress-answer";
import { requireScope, TASK_CREATION_SCOPE } from "../scopes";
import { acceptsEventStream } from "../sse";
import {
  awaitOrdinaryAnswer,
  readArguments,
  readIdempotencyKey,
  resolveTool,
  startTask,
  syncDeadlineMs,
} from "../tool-invocation";
import { legacyTask } from "./bound-task";
import { forgetAnsweredCall, rememberOrdinaryCall } from "./ordinary-cancel";
import { streamOrdinaryCall } from "./ordinary-stream";
import { versionHasTasks } from "./protocol-version";
import { sessionMayElicit } from "./session";

const MODEL_IMMEDIATE_RESPONSE = "io.modelcontextprotocol/model-immediate-response";

/**
 * tools/call for 2025-11-25 and older clients.
 *
 * Task mode is decided before anything runs or is written (the SDK v1 server runs the handler
 * first; the spec wants the error instead): a `required` tool called plainly MUST get -32601 and a
 * `forbidden` tool called as a task SHOULD get -32601 (tasks.mdx "Tool-Level Negotiation"; the
 * Error Handling section's -32600 is only a MAY for other request types).
 *
 * A client on a version without tasks never saw `capabilities.tasks`, so its `params.task` is
 * ignored and the call takes the ordinary path (tasks.mdx "Task Support and Handling": MUST process
 * normally). A `required` tool cannot take that path and answers -32601 in every legacy version.
 * On the ordinary path a client whose session declared elicitation gets the workflow's questions
 * inline, on the call's own SSE stream; every other client waits for the result as JSON.
 */
export async function toolsCall(deps: McpDeps, call: McpCall, id: JsonRpcId, params: Record<string, unknown>, version: string) {
  // The companion tools of task handles come first (a tenant that turned handles off has none).
  if (isCompanionTool(params.name) && (await tenantOffersHandles(deps.sql, call.principal.tenantId)))
    return answerCompanionCall(deps, call, { id, name: params.name, params });
  // Every call of a route starts a run, ordinary or task (scopes.ts): refused before anything is read.
  requireScope(call.principal, TASK_CREATION_SCOPE);
  const route = await resolveTool(deps, call.principal, params.name, call);
  const task = versionHasTasks(version) ? params.task : undefined;
  if (task !== undefined && !isRecord(task)) throw new McpError(RPC.invalidParams, "params.task must be an object");
  const asTask = task !== undefined;
  if (route.task_support === "required" && !asTask) {
    throw new McpError(
      RPC.methodNotFound,
      versionHasTasks(version)
        ? `Tool ${route.tool_name} requires task augmentation (params.task)`
        : `Tool ${route.tool_name} runs only as a task, which needs protocol version 2025-11-25`,
    );
  }
  if (route.task_support === "forbidden" && asTask) {
    throw new McpError(RPC.methodNotFound, `Tool ${route.tool_name} does not support task augmentation`);
  }
  const args = readArguments(params);
  if (!asTask) {
    // The call will be held open (a JSON wait, or an SSE stream when it asks inline or reports
    // progress): its slot is taken before any run exists, so a refused call (429,
    // credential-limits.ts) starts nothing.
    const inline = asksInline(call);
    const release = inline ? holdStream(deps, call) : holdWait(deps, call);
    let handedOver = false;
    try {
      const idempotencyKey = readIdempotencyKey(params);
      const started = await startTask(deps, call, route, args, { origin: "ordinary", idempotencyKey });
      if (started.kind === "invalid") return started.result;
      // Before waiting: a notifications/cancelled for this id, to any instance, finds the run (ordinary-cancel.ts).
      await rememberOrdinaryCall(deps, call, id, started.task.id, syncDeadlineMs(route));
      const progressToken = readProgressToken(params);
      handedOver = true;
      if (inline) return streamOrdinaryCall(deps, call, id, route, started.task, progressToken, release);
      // The wait ends however it ends; its slot and its cancel record go with it.
      const waited = async (sink: ProgressSink | undefined) => {
        try {
          return await awaitOrdinaryAnswer(deps, call, route, started.task.id, sink);
        } finally {
          release();
          if (!call.signal.aborted) await forgetAnsweredCall(deps, started.task.id);
        }
      };
      return answerWithProgress(deps, call, { id, progressToken }, waited);
    } finally {
      if (!handedOver) release();
    }
  }

  const started = await startTask(deps, call, route, args, {
    origin: "legacy",
    requestedTtlMs: readTtl(task),
    progressToken: readProgressToken(params),
    idempotencyKey: readIdempotencyKey(params),
  });
  // Arguments that fail the tool's schema are a tool execution error the model can correct
  // (2025-11-25 server/tools.mdx "Error Handling" lists input validation under Tool Execution
  // Errors, `isError: true`), not -32602. No task was accepted, so the answer is that CallToolResult
  // itself — the SDK v1 client's callToolStream takes a direct result for a task request — exactly
  // what the modern leg answers.
  if (started.kind === "invalid") return started.result;
  deps.logger.info("legacy task created", { taskId: started.task.id, tool: route.tool_name, keyId: call.principal.keyId });
  // The creating session's standalone GET stream delivers this task's questions (standalone-stream.ts),
  // recorded before the CreateTaskResult goes out. Best effort: without the row the questions still
  // reach tasks/result, tasks/update and the operator; a failed insert must not lose the created task.
  if (call.session) {
    await linkMcpSessionTask(deps.sql, { idSha256: call.session.idSha256, runId: started.task.id }).catch((error: Error) =>
      deps.logger.warn("legacy task not linked to its session", { taskId: started.task.id, error: error.message }),
    );
  }
  // CreateTaskResult is nested ({task}) in 2025-11-25, and is sent once the run is committed.
  return {
    task: legacyTask(started.task),
    _meta: {
      [MODEL_IMMEDIATE_RESPONSE]: `Started ${route.tool_name} as task ${started.task.id}; its result follows when it finishes.`,
    },
  };
}

/**
 * The ordinary path asks the run's questions inline (ordinary-stream.ts) only to a client that can
 * receive them: its session declared elicitation (no session: nothing server-initiated is sent),
 * and this request accepts an SSE answer (a JSON-only request cannot carry a server request).
 */
function asksInline(call: McpCall): boolean {
  return sessionMayElicit(call.session) && acceptsEventStream(call.request.headers);
}

/** `params.task.ttl`: requested retention in ms from creation; granted up to the route's and tenant's caps. */
function readTtl(task: Record<string, unknown>): number | undefined {
  const ttl = task.ttl;
  if (ttl === undefined) return undefined;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl < 0) {
    throw new McpError(RPC.invalidParams, "params.task.ttl must be a non-negative number of milliseconds");
  }
  return ttl;
}
