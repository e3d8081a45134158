import type { InputRequest, InputResponse } from "@runifold/sdk";
import { cancelRunForTenant, type ProvideInputResult, provideInputForTenant } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { decideAsCaller } from "../approvals";
import { approvalKeyOf } from "./approval-view";
import { findTaskTenant } from "./queries/task-detail";
import { readTaskRecord } from "./queries/task-record";
import { readBoundTaskHandle, type TaskBinding } from "./task-binding";
import { validateInputResponse } from "./validate-input-response";

/**
 * Actions through an MCP task handle: the handle must be bound to the caller's credential
 * (task-binding.ts) and not expired, otherwise the answer is "not found", exactly as for an ID that
 * never existed.
 */
export async function cancelTaskByHandle(
  sql: SqlHandle,
  params: TaskBinding & { taskId: string; actor: string },
): Promise<"cancelled" | "already_terminal" | "not_found"> {
  const handle = await readBoundTaskHandle(sql, params);
  if (!handle) return "not_found";
  const result = await cancelRunForTenant(sql, {
    runId: params.taskId,
    tenantId: params.tenantId,
    reason: "Cancelled by client",
    actor: params.actor,
  });
  return result.outcome;
}

/**
 * provideInputForTenant's outcome, or the first answer that failed its request's schema (then nothing
 * was written); `refused`: an approval decision decideApproval refused (audited, nothing recorded).
 */
export type AnswerOutcome = ProvideInputResult & {
  invalid?: { key: string; message: string };
  refused?: { key: string; message: string };
};

/**
 * Answers through an MCP handle. Every answer to a pending request is checked against that
 * request's requestedSchema first; one invalid answer refuses the whole update and changes nothing.
 * Keys that are not pending (unknown, already answered) go on to provideInputForTenant, which ignores them.
 */
export async function answerTaskByHandle(
  sql: SqlHandle,
  params: TaskBinding & { taskId: string; responses: Record<string, InputResponse>; actor: string },
): Promise<AnswerOutcome> {
  const handle = await readBoundTaskHandle(sql, params);
  if (!handle) return { found: false, accepted: [], resumed: false };
  const approvalKey = approvalKeyOf(handle);
  if (approvalKey !== undefined && params.responses[approvalKey])
    return answerApproval(sql, params, handle.pendingInputs, approvalKey);
  const invalid = firstInvalidAnswer(handle.pendingInputs ?? {}, params.responses);
  if (invalid) return { found: true, accepted: [], resumed: false, invalid };
  return provideInputForTenant(sql, {
    runId: params.taskId,
    tenantId: params.tenantId,
    responses: params.responses,
    actor: params.actor,
  });
}

/**
 * An answer to the approval the task waits on is a decision, never input: checked against the
 * decision form when this caller was shown one, then decided by decideApproval as the person behind
 * the credential (decideAsCaller, channel mcp) — for an ineligible caller too, whose refusal is
 * audited. A dismissed form (`cancel`) decides nothing.
 */
async function answerApproval(
  sql: SqlHandle,
  params: TaskBinding & { taskId: string; responses: Record<string, InputResponse> },
  pending: Record<string, InputRequest> | undefined,
  key: string,
): Promise<AnswerOutcome> {
  const response = params.responses[key] as InputResponse;
  const invalid = firstInvalidAnswer(pending ?? {}, { [key]: response });
  if (invalid) return { found: true, accepted: [], resumed: false, invalid };
  const decided = await decideAsCaller(sql, params, params.taskId, key, response);
  if (decided.kind === "recorded") return { found: true, accepted: [key], resumed: decided.outcome !== null };
  if (decided.kind === "dismissed") return { found: true, accepted: [], resumed: false };
  const message = decided.kind === "not_found" ? `Task ${params.taskId} has no open approval '${key}'` : decided.message;
  return { found: true, accepted: [], resumed: false, refused: { key, message } };
}

function firstInvalidAnswer(
  pending: Record<string, InputRequest>,
  responses: Record<string, InputResponse>,
): { key: string; message: string } | undefined {
  for (const [key, response] of Object.entries(responses)) {
    const request = pending[key];
    if (!request) continue;
    const check = validateInputResponse(key, request, response);
    if (!check.ok) return { key, message: check.message };
  }
  return undefined;
}

/**
 * Operator actions (the console): `scope` is the operator's tenants, null for an admin (every
 * tenant). A task outside the scope is "not found", exactly as one that never existed; handle
 * expiry does not apply (operators see a task until retention purges it).
 */
export async function cancelTaskInScope(
  sql: SqlHandle,
  params: { taskId: string; scope: string[] | null; actor: string },
): Promise<{ outcome: "cancelled" | "already_terminal"; tenantId: string } | { outcome: "not_found" }> {
  const tenantId = await findTaskTenant(sql, params);
  if (!tenantId) return { outcome: "not_found" };
  const result = await cancelRunForTenant(sql, {
    runId: params.taskId,
    tenantId,
    reason: "Cancelled by operator",
    actor: params.actor,
  });
  return result.outcome === "not_found" ? { outcome: "not_found" } : { outcome: result.outcome, tenantId };
}

/**
 * Answers one pending request found with findPendingInput (which applied the operator's scope)
 * through provideInputForTenant, the one answer path of every channel. `answered` is false when the request
 * stopped waiting in between (answered elsewhere, cancelled).
 */
export async function answerPendingInput(
  sql: SqlHandle,
  params: { taskId: string; tenantId: string; key: string; response: InputResponse; actor: string },
): Promise<{ answered: boolean; resumed: boolean; invalid?: string }> {
  const record = await readTaskRecord(sql, params);
  const request = record?.pendingInputs?.[params.key];
  const check = request ? validateInputResponse(params.key, request, params.response) : { ok: true as const };
  if (!check.ok) return { answered: false, resumed: false, invalid: check.message };
  const result = await provideInputForTenant(sql, {
    runId: params.taskId,
    tenantId: params.tenantId,
    responses: { [params.key]: params.response },
    actor: params.actor,
  });
  return { answered: result.found && result.accepted.includes(params.key), resumed: result.resumed };
}
