import type { WorkflowResult } from "@runifold/sdk";
import { InvalidWorkflowInput } from "@runifold/sdk";
import { findActiveRoute, MAX_SYNC_DEADLINE_MS, type RouteRow } from "../../db/queries/routes";
import { tenantOffersHandles } from "../../db/queries/tenants";
import type { Principal } from "../auth";
import type { TaskRecord } from "../tasks";
import {
  atActiveTaskCap,
  createTaskFromRoute,
  DEFAULT_MAX_ACTIVE_TASKS_PER_KEY,
  isTerminalTaskStatus,
  taskStatus,
} from "../tasks";
import { takeTaskCreation } from "./credential-limits";
import { handleResult } from "./handles/task-handle";
import { isRecord, McpError, RPC } from "./json-rpc";
import type { McpCall, McpDeps } from "./mcp-deps";
import { followTask, type ProgressSink } from "./progress-answer";

/**
 * Shared by both protocol legs: which route a tool name means for this tenant, and how it runs.
 * With the call at hand, the credential's active-task count is read at the same time, on another
 * pooled connection (startTask consumes it), so a task-creating call waits for one round trip where
 * it waited for two.
 */
export async function resolveTool(deps: McpDeps, principal: Principal, name: unknown, call?: McpCall): Promise<RouteRow> {
  if (typeof name !== "string" || name.length === 0) throw new McpError(RPC.invalidParams, "params.name must be a tool name");
  // Read with the credential already when the request named this tool (auth-gate.ts: the modern headers, a legacy session's body): no round trip here.
  const ahead = call?.prefetchedTool?.toolName === name ? call.prefetchedTool : undefined;
  if (call && ahead) capChecks.set(call, Promise.resolve(ahead.atCap));
  else if (call) prefetchActiveTaskCap(deps, call);
  const route = ahead ? ahead.route : await findActiveRoute(deps.sql, principal.tenantId, name);
  if (!route) throw new McpError(RPC.invalidParams, `Unknown tool: ${name}`);
  return route;
}

const capChecks = new WeakMap<McpCall, Promise<boolean>>();

function checkActiveTaskCap(deps: McpDeps, call: McpCall): Promise<boolean> {
  return atActiveTaskCap(deps.sql, call.principal.keyId, deps.maxActiveTasksPerKey ?? DEFAULT_MAX_ACTIVE_TASKS_PER_KEY);
}

function prefetchActiveTaskCap(deps: McpDeps, call: McpCall) {
  const check = checkActiveTaskCap(deps, call);
  // Not yet awaited (the call may end before it creates anything): no unhandled rejection meanwhile;
  // startTask awaits the original promise and sees its error.
  check.catch(() => {});
  capChecks.set(call, check);
}

/** The prefetched count, used once (a second task of the same request counts afresh), or a new read. */
function takeActiveTaskCap(deps: McpDeps, call: McpCall): Promise<boolean> {
  const prefetched = capChecks.get(call);
  capChecks.delete(call);
  return prefetched ?? checkActiveTaskCap(deps, call);
}

/** Where a caller puts its idempotency key on tools/call (docs/architecture.md, "Idempotent creation"). */
export const IDEMPOTENCY_META_KEY = "io.runifold/idempotencyKey";

/** `_meta["io.runifold/idempotencyKey"]`: a retried call with the same key returns the same task. */
export function readIdempotencyKey(params: Record<string, unknown>): string | undefined {
  const meta = isRecord(params._meta) ? params._meta : undefined;
  const key = meta?.[IDEMPOTENCY_META_KEY];
  if (key === undefined) return undefined;
  if (typeof key !== "string" || key.length < 1 || key.length > 255)
    throw new McpError(RPC.invalidParams, `_meta["${IDEMPOTENCY_META_KEY}"] must be a string of 1-255 characters`);
  return key;
}

export function readArguments(params: Record<string, unknown>): Record<string, unknown> {
  if (params.arguments === undefined) return {};
  if (!isRecord(params.arguments)) throw new McpError(RPC.invalidParams, "params.arguments must be an object");
  return params.arguments;
}

/** Input that fails the workflow's schema is a tool execution error the caller can correct (SEP-1303). */
export function invalidArgumentsResult(error: InvalidWorkflowInput): WorkflowResult & { isError: true } {
  return { content: [{ type: "text", text: error.message }], isError: true };
}

/**
 * What a tools/call answers when the credential is at its cap of live tasks, in both eras. A tool
 * execution error (CallToolResult with isError), not a JSON-RPC error: the request itself is valid
 * (-32600/-32602 would say it is malformed, -32603 that the server broke), the refusal is a
 * condition of this call the caller can act on (wait, cancel tasks), and MCP reports those in the
 * result so the model sees them ("Tool Execution Errors": rate limits among them). It is also how
 * both eras already answer arguments that fail the schema, so clients handle one shape.
 */
export function activeTaskCapResult(cap: number): WorkflowResult & { isError: true } {
  return {
    content: [
      {
        type: "text",
        text: `Too many active tasks: this credential already has ${cap} tasks that have not finished. Wait for some to finish (or cancel them), then call again.`,
      },
    ],
    isError: true,
  };
}

export type StartedTask = { kind: "task"; task: TaskRecord } | { kind: "invalid"; result: WorkflowResult };

export async function startTask(
  deps: McpDeps,
  call: McpCall,
  route: RouteRow,
  args: Record<string, unknown>,
  options: {
    origin: "modern" | "legacy" | "ordinary";
    requestedTtlMs?: number | null;
    answeredInputs?: Record<string, { request: unknown; response: unknown }>;
    progressToken?: string | number;
    idempotencyKey?: string;
  },
): Promise<StartedTask> {
  const cap = deps.maxActiveTasksPerKey ?? DEFAULT_MAX_ACTIVE_TASKS_PER_KEY;
  if (await takeActiveTaskCap(deps, call)) return { kind: "invalid", result: activeTaskCapResult(cap) };
  // The creation rate (a token per task, credential-limits.ts) is spent only by calls the cap let through.
  const overRate = takeTaskCreation(deps, call);
  if (overRate) return { kind: "invalid", result: overRate };
  try {
    const task = await createTaskFromRoute(deps.sql, {
      principal: call.principal,
      route,
      args,
      origin: options.origin,
      requestedTtlMs: options.requestedTtlMs,
      answeredInputs: options.answeredInputs,
      progressToken: options.progressToken,
      idempotencyKey: options.idempotencyKey,
    });
    return { kind: "task", task };
  } catch (error) {
    if (error instanceof InvalidWorkflowInput) return { kind: "invalid", result: invalidArgumentsResult(error) };
    throw error;
  }
}

/**
 * The ordinary path for callers that did not negotiate tasks: the call still becomes a durable run,
 * and the response waits for it up to the route's deadline. Past the deadline the run keeps going
 * and the caller gets a task handle (handles/task-handle.ts), or, where the tenant turned handles
 * off, a tool error naming the task.
 */
export async function runToCompletion(
  deps: McpDeps,
  call: McpCall,
  route: RouteRow,
  args: Record<string, unknown>,
  answeredInputs?: Record<string, { request: unknown; response: unknown }>,
  idempotencyKey?: string,
): Promise<WorkflowResult> {
  const started = await startTask(deps, call, route, args, { origin: "ordinary", answeredInputs, idempotencyKey });
  if (started.kind === "invalid") return started.result;
  return awaitOrdinaryAnswer(deps, call, route, started.task.id);
}

/**
 * The wait of runToCompletion for a run already started (the legacy leg records the call's ID
 * first), for a client that cannot be asked the run's questions on this request. Where the tenant
 * offers handles, a run that asks for input ends the wait at once with the handle (the client
 * answers through runifold_task_answer; waiting out the deadline would only delay that); elsewhere
 * an operator may still answer within the deadline. The run's rising progress goes to `sink`.
 */
export async function awaitOrdinaryAnswer(
  deps: McpDeps,
  call: McpCall,
  route: RouteRow,
  taskId: string,
  sink?: ProgressSink,
): Promise<WorkflowResult> {
  const handles = await tenantOffersHandles(deps.sql, call.principal.tenantId);
  const record = await followTask(deps, call, {
    taskId,
    deadline: Date.now() + syncDeadlineMs(route),
    done: (r) => isOver(r) || (handles && waitsForInput(r)),
    sink,
  });
  return ordinaryAnswer(record, taskId, { route, handles });
}

/** The route's sync deadline, never above the documented maximum (a stored value predating the cap included). */
export function syncDeadlineMs(route: RouteRow): number {
  return Math.min(route.sync_deadline_ms, MAX_SYNC_DEADLINE_MS);
}

/** The run is over: its terminal payload is there, or its task status is terminal. */
export function isOver(record: TaskRecord): boolean {
  return record.terminal !== undefined || isTerminalTaskStatus(taskStatus(record, "modern"));
}

/** The run waits for an answer to at least one question. */
export function waitsForInput(record: TaskRecord): boolean {
  return taskStatus(record, "modern") === "input_required";
}

/**
 * The final tool result of a run that is over, exactly as the tool call answers it in both eras:
 * the stored result; the run's JSON-RPC error (thrown as McpError); the cancelled result.
 */
export function finalToolResult(record: TaskRecord): WorkflowResult {
  const terminal = record.terminal;
  if (terminal?.result) return terminal.result;
  if (terminal?.error) throw new McpError(terminal.error.code, terminal.error.message, terminal.error.data);
  return cancelledResult(record.id);
}

/**
 * What an ordinary (non-task) tools/call answers for the run as last read, in both eras: the final
 * tool result once it is over; else, where the tenant offers handles, the task handle (not an error:
 * the work goes on, and the text names the tool to call next); else the "still running" tool error
 * naming the task.
 */
export function ordinaryAnswer(
  record: TaskRecord | undefined,
  taskId: string,
  context: { route: RouteRow; handles: boolean; lead?: string },
): WorkflowResult {
  if (record && isOver(record)) return finalToolResult(record);
  const lead = context.lead ?? `Still running after ${Math.round(syncDeadlineMs(context.route) / 1000)}s`;
  if (record && context.handles) {
    return handleResult(record, !context.lead && waitsForInput(record) ? "The work needs an answer before it can go on" : lead);
  }
  return {
    content: [
      {
        type: "text",
        text: `${lead}; the work continues as task ${taskId}. Follow it up in the Runifold operator UI (Tasks), or call again from a client that supports MCP tasks.`,
      },
    ],
    structuredContent: { taskId, status: record?.status === "waiting_input" ? "input_required" : "working" },
    isError: true,
  };
}

/**
 * What a tools/call whose run was cancelled answers on the ordinary path; the legacy tasks/result
 * of a cancelled task returns the very same result ("exactly what the underlying request would
 * have returned", 2025-11-25 basic/utilities/tasks "Result Retrieval").
 */
export function cancelledResult(taskId: string): WorkflowResult & { isError: true } {
  return { content: [{ type: "text", text: `Task ${taskId} was cancelled.` }], isError: true };
}

/** What tools/list shows for a route, in either era (`execution` only where the era has it). */
export function toolDescriptor(route: RouteRow, era: "modern" | "legacy") {
  return {
    name: route.tool_name,
    ...(route.title ? { title: route.title } : {}),
    description: route.description,
    inputSchema: route.input_schema,
    ...(era === "legacy" ? { execution: { taskSupport: route.task_support } } : {}),
  };
}
