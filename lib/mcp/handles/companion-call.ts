import type { InputResponse, WorkflowResult } from "@runifold/sdk";
import { answerTaskByHandle, cancelTaskByHandle, listKeyTasks, readBoundTaskHandle, type TaskRecord } from "../../tasks";
import { holdWait } from "../credential-limits";
import { isElicitResult } from "../elicit-result";
import { isRecord, type JsonRpcId } from "../json-rpc";
import { decodeCursor, encodeCursor } from "../legacy/tasks-list";
import type { McpCall, McpDeps } from "../mcp-deps";
import { answerWithProgress, followTask, type ProgressSink, readProgressToken } from "../progress-answer";
import { requireScope, TASK_READ_SCOPE } from "../scopes";
import { finalToolResult, isOver } from "../tool-invocation";
import { answerApproval, approvalKeyOf } from "./approval-answer";
import { COMPANION, type CompanionName, DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS } from "./companion-tools";
import { handleResult, taskHandle } from "./task-handle";

/** What changes a task through its handle needs (answer, cancel): the scope that writes tasks. */
const TASK_WRITE_SCOPE = "tasks:write" as const;
/** runifold_task_list page size: small enough for a model's context. */
export const HANDLE_LIST_PAGE_SIZE = 20;

/**
 * tools/call of a companion tool, in either era (the legs route here before looking up a route).
 * Each reads or changes only a task bound to the caller's credential (lib/tasks/task-binding.ts):
 * another key's or tenant's task, an expired handle and an ID that never existed all answer the
 * same "not found" tool error. Mistakes a model can correct (a missing argument, an answer that does
 * not fit the question) are tool errors too (isError, SEP-1303), never JSON-RPC errors. A wait with a
 * progressToken streams the run's progress (progress-answer.ts). `frame`: the leg's final framing.
 */
export async function answerCompanionCall(
  deps: McpDeps,
  call: McpCall,
  request: { id: JsonRpcId; name: CompanionName; params: Record<string, unknown>; frame?: (result: unknown) => unknown },
): Promise<unknown> {
  const args = isRecord(request.params.arguments) ? request.params.arguments : {};
  switch (request.name) {
    case COMPANION.status: {
      requireScope(call.principal, TASK_READ_SCOPE);
      const found = await boundTask(deps, call, args.taskId, request.name);
      return found.record ? handleResult(found.record) : found.error;
    }
    case COMPANION.wait: {
      requireScope(call.principal, TASK_READ_SCOPE);
      const seconds = args.timeoutSeconds ?? DEFAULT_WAIT_SECONDS;
      if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_WAIT_SECONDS)
        return toolError(`timeoutSeconds must be an integer from 1 to ${MAX_WAIT_SECONDS}`);
      // A blocking wait holds one of the credential's wait slots (429 when full), as every held call does.
      const release = holdWait(deps, call);
      const progress = { id: request.id, progressToken: readProgressToken(request.params), frame: request.frame };
      return answerWithProgress(deps, call, progress, (sink) =>
        waitForHandle(deps, call, args.taskId, seconds, sink).finally(release),
      );
    }
    case COMPANION.answer:
      requireScope(call.principal, TASK_WRITE_SCOPE);
      return answer(deps, call, args);
    case COMPANION.cancel: {
      requireScope(call.principal, TASK_WRITE_SCOPE);
      const found = await boundTask(deps, call, args.taskId, request.name);
      if (!found.record) return found.error;
      const binding = { tenantId: call.principal.tenantId, keyId: call.principal.keyId, taskId: found.record.id };
      await cancelTaskByHandle(deps.sql, { ...binding, actor: call.principal.actor });
      const after = await readBoundTaskHandle(deps.sql, binding);
      return after ? handleResult(after, "Cancel requested") : notFound(found.record.id);
    }
    default:
      requireScope(call.principal, TASK_READ_SCOPE);
      return list(deps, call, args.cursor);
  }
}

type Found = { record: TaskRecord; error?: undefined } | { record?: undefined; error: WorkflowResult };

async function boundTask(deps: McpDeps, call: McpCall, taskId: unknown, tool: string): Promise<Found> {
  if (typeof taskId !== "string" || taskId.length === 0) return { error: toolError("taskId is required (a handle's taskId)") };
  const record = await readBoundTaskHandle(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId,
    lookup: { method: `tools/call ${tool}`, actor: call.principal.actor },
  });
  return record ? { record } : { error: notFound(taskId) };
}

/**
 * runifold_task_wait: the run's own final tool result — exactly what the tool call would have
 * answered had it waited (finalToolResult: the stored result, the run's JSON-RPC error, the
 * cancelled result) — once it is over within `seconds`; else the handle again.
 */
async function waitForHandle(
  deps: McpDeps,
  call: McpCall,
  taskId: unknown,
  seconds: number,
  sink: ProgressSink | undefined,
): Promise<WorkflowResult> {
  const found = await boundTask(deps, call, taskId, COMPANION.wait);
  if (!found.record) return found.error;
  if (isOver(found.record)) return finalToolResult(found.record);
  const record = await followTask(deps, call, {
    taskId: found.record.id,
    deadline: Date.now() + seconds * 1_000,
    done: (r) => isOver(r),
    sink,
  });
  if (!record) return notFound(found.record.id);
  return isOver(record) ? finalToolResult(record) : handleResult(record, `Not finished after ${seconds}s`);
}

/**
 * runifold_task_answer: one answer, validated against its question's requestedSchema like every
 * other channel's (lib/tasks answerTaskByHandle, the one provideInput path), recorded as the
 * caller's credential. The handle afterwards says what happens next.
 */
async function answer(deps: McpDeps, call: McpCall, args: Record<string, unknown>): Promise<WorkflowResult> {
  const found = await boundTask(deps, call, args.taskId, COMPANION.answer);
  if (!found.record) return found.error;
  const record = found.record;
  if (typeof args.key !== "string" || args.key.length === 0) return toolError("key is required (waitingFor.questions[].key)");
  if (!isElicitResult(args.response))
    return toolError(`response must be {"action": "accept", "content": {...}}, {"action": "decline"} or {"action": "cancel"}`);
  if (approvalKeyOf(record) === args.key)
    return answerApproval(deps, call, record, args.key, args.response as { action: string; content?: Record<string, unknown> });
  const pending = record.pendingInputs ?? {};
  if (!(args.key in pending)) {
    const open = Object.keys(pending);
    return toolError(
      open.length > 0
        ? `Task ${record.id} does not wait for '${args.key}'; it waits for ${open.map((k) => `'${k}'`).join(", ")}.`
        : `Task ${record.id} does not wait for an answer now (${taskHandle(record).statusMessage}).`,
    );
  }
  const outcome = await answerTaskByHandle(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId: record.id,
    responses: { [args.key]: args.response as InputResponse },
    actor: call.principal.actor,
  });
  if (outcome.invalid) return toolError(`The answer to '${args.key}' was not accepted: ${outcome.invalid.message}`);
  const after = await readBoundTaskHandle(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId: record.id,
  });
  if (!after) return notFound(record.id);
  const lead = outcome.accepted.includes(args.key) ? `Answer to '${args.key}' recorded` : `'${args.key}' was answered already`;
  return handleResult(after, lead);
}

async function list(deps: McpDeps, call: McpCall, cursor: unknown): Promise<WorkflowResult> {
  let after: ReturnType<typeof decodeCursor> | undefined;
  try {
    after = cursor === undefined ? undefined : decodeCursor(cursor, call.principal);
  } catch {
    return toolError("cursor is not one this server gave you: call again without it for the first page");
  }
  const records = await listKeyTasks(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    after,
    limit: HANDLE_LIST_PAGE_SIZE,
  });
  const page = records.slice(0, HANDLE_LIST_PAGE_SIZE);
  const last = page.at(-1);
  const nextCursor =
    records.length > HANDLE_LIST_PAGE_SIZE && last
      ? encodeCursor({ createdAt: last.createdAt, id: last.id }, call.principal)
      : undefined;
  const tasks = page.map((record) => {
    const { taskId, status, statusMessage } = taskHandle(record);
    return { taskId, tool: record.toolName, status, statusMessage, createdAt: record.createdAt.toISOString() };
  });
  const lines = tasks.map((t) => `${t.taskId} ${t.tool ?? "(no tool)"} ${t.status}: ${t.statusMessage} (started ${t.createdAt})`);
  const text =
    tasks.length === 0
      ? "No tasks."
      : `${lines.join("\n")}${nextCursor ? `\nMore: call ${COMPANION.list} ${JSON.stringify({ cursor: nextCursor })}` : ""}`;
  return {
    content: [{ type: "text", text }],
    structuredContent: { tasks, ...(nextCursor ? { nextCursor } : {}) },
    isError: false,
  };
}

/** The one answer for an unknown, expired, another key's or another tenant's task. */
function notFound(taskId: string): WorkflowResult {
  return toolError(`Task not found: ${taskId.slice(0, 100)}`);
}

function toolError(text: string): WorkflowResult {
  return { content: [{ type: "text", text }], isError: true };
}
