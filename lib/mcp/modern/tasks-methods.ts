import type { InputResponse } from "@runifold/sdk";
import {
  answerTaskByHandle,
  bindTaskHandle,
  cancelTaskByHandle,
  presentBoundTask,
  readBoundTaskHandle,
  type TaskRecord,
} from "../../tasks";
import { isElicitResult } from "../elicit-result";
import { missingInputCapabilities } from "../input-capabilities";
import { missingForQuestions } from "../input-gate";
import { isRecord, McpError, RPC } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { detailedTask, taskLinksMeta } from "../task-shapes";
import { type ModernEnvelope, missingCapabilities, missingTasksCapability } from "./envelope";

/** One answer for missing, foreign, expired and purged IDs alike (ext-tasks "Error Handling"). */
export const taskNotFound = () => new McpError(RPC.invalidParams, "Task not found");

function taskIdOf(params: Record<string, unknown>): string {
  if (typeof params.taskId !== "string" || params.taskId.length === 0)
    throw new McpError(RPC.invalidParams, "params.taskId is required");
  return params.taskId;
}

/** tasks/get: an idempotent read carrying result, error or outstanding inputRequests inline. */
export async function tasksGet(deps: McpDeps, call: McpCall, params: Record<string, unknown>, envelope: ModernEnvelope) {
  if (!envelope.declaresTasks) throw missingTasksCapability();
  const handle = {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId: taskIdOf(params),
    lookup: { method: "tasks/get", actor: call.principal.actor },
  };
  // Read with the credential already when the headers named this task (auth-gate.ts): one round trip.
  const prefetched = call.prefetchedTask?.taskId === handle.taskId ? call.prefetchedTask : undefined;
  // As this credential sees it either way: an approval its person may decide is input_required (presentBoundTask).
  const record = prefetched
    ? await presentBoundTask(deps.sql, handle, bindTaskHandle(deps.sql, handle, prefetched.record))
    : await readBoundTaskHandle(deps.sql, handle);
  if (!record) throw taskNotFound();
  const detailed = detailedTask(record, envelope);
  // input_required MUST list every outstanding request (ext-tasks "tasks/get"), and a server MUST
  // NOT send one the request did not declare support for (mrtr.mdx rule 7): when this request can
  // be sent none of them, the read needs a capability it lacks — -32021, never an empty map (review3 D4).
  if ("inputRequests" in detailed && Object.keys(detailed.inputRequests).length === 0) {
    throw missingCapabilities(questionCapabilities(envelope, record));
  }
  // A task linked to a parent or children by ctx.child says so (task-shapes.ts taskLinksMeta).
  return { resultType: "complete", ...detailed, ...taskLinksMeta(record) };
}

/** What the pending requests need beyond what this request declared (workflows ask form elicitations). */
function questionCapabilities(envelope: ModernEnvelope, record: TaskRecord): Record<string, unknown> {
  const methods = Object.values(record.pendingInputs ?? {}).map((request) => request.method);
  const missing = {
    ...missingInputCapabilities(envelope.clientCapabilities, methods),
    ...missingForQuestions(envelope.clientCapabilities),
  };
  return Object.keys(missing).length > 0 ? missing : { elicitation: { form: {} } };
}

/**
 * tasks/update: keyed inputResponses through the one provideInput operation. Unknown, answered or
 * malformed entries are ignored (ext-tasks: servers SHOULD ignore them); the ack is empty and the
 * accepted answers are committed before it is sent, so the next tasks/get already reflects them.
 * An answer whose content fails its request's requestedSchema (client/elicitation.mdx: servers
 * SHOULD validate) is refused with -32602 naming the key and field, and nothing is written — the
 * caller learns why, rather than an ack that silently leaves the task waiting.
 */
export async function tasksUpdate(deps: McpDeps, call: McpCall, params: Record<string, unknown>, envelope: ModernEnvelope) {
  if (!envelope.declaresTasks) throw missingTasksCapability();
  const taskId = taskIdOf(params);
  const raw = isRecord(params.inputResponses) ? params.inputResponses : {};
  const responses: Record<string, InputResponse> = {};
  for (const [key, value] of Object.entries(raw)) if (isElicitResult(value)) responses[key] = value;
  const outcome = await answerTaskByHandle(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId,
    responses,
    actor: call.principal.actor,
    lookup: { method: "tasks/update", actor: call.principal.actor },
  });
  if (!outcome.found) throw taskNotFound();
  if (outcome.invalid) throw new McpError(RPC.invalidParams, outcome.invalid.message, { key: outcome.invalid.key });
  // An approval decision the policy refused (audited, nothing recorded) says why, like an invalid answer.
  if (outcome.refused) throw new McpError(RPC.invalidParams, outcome.refused.message, { key: outcome.refused.key });
  return { resultType: "complete" };
}

/** tasks/cancel: a cooperative ack; idempotent on terminal tasks (the extension's rule, unlike 2025-11-25). */
export async function tasksCancel(deps: McpDeps, call: McpCall, params: Record<string, unknown>, envelope: ModernEnvelope) {
  if (!envelope.declaresTasks) throw missingTasksCapability();
  const outcome = await cancelTaskByHandle(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId: taskIdOf(params),
    actor: call.principal.actor,
    lookup: { method: "tasks/cancel", actor: call.principal.actor },
  });
  if (outcome === "not_found") throw taskNotFound();
  return { resultType: "complete" };
}
