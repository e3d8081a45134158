import type { InputResponse } from "@runifold/sdk";
import { cancelRun, type ProvideInputResult, provideInput } from "@runifold/sdk";
import type { SqlHandle } from "../../db/client";
import { findTaskTenant } from "./queries/task-detail";
import { readTaskHandle } from "./queries/task-record";

/**
 * Actions through an MCP task handle: the handle must be visible to the tenant and not expired,
 * otherwise the answer is "not found", exactly as for an ID that never existed.
 */
export async function cancelTaskByHandle(
  sql: SqlHandle,
  params: { tenantId: string; taskId: string; actor: string },
): Promise<"cancelled" | "already_terminal" | "not_found"> {
  const handle = await readTaskHandle(sql, params);
  if (!handle) return "not_found";
  const result = await cancelRun(sql, {
    runId: params.taskId,
    tenantId: params.tenantId,
    reason: "Cancelled by client",
    actor: params.actor,
  });
  return result.outcome;
}

export async function answerTaskByHandle(
  sql: SqlHandle,
  params: { tenantId: string; taskId: string; responses: Record<string, InputResponse>; actor: string },
): Promise<ProvideInputResult> {
  const handle = await readTaskHandle(sql, params);
  if (!handle) return { found: false, accepted: [], resumed: false };
  return provideInput(sql, { runId: params.taskId, tenantId: params.tenantId, responses: params.responses, actor: params.actor });
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
  const result = await cancelRun(sql, { runId: params.taskId, tenantId, reason: "Cancelled by operator", actor: params.actor });
  return result.outcome === "not_found" ? { outcome: "not_found" } : { outcome: result.outcome, tenantId };
}

/**
 * Answers one pending request found with findPendingInput (which applied the operator's scope)
 * through provideInput, the one answer path of every channel. `answered` is false when the request
 * stopped waiting in between (answered elsewhere, cancelled).
 */
export async function answerPendingInput(
  sql: SqlHandle,
  params: { taskId: string; tenantId: string; key: string; response: InputResponse; actor: string },
): Promise<{ answered: boolean; resumed: boolean }> {
  const result = await provideInput(sql, {
    runId: params.taskId,
    tenantId: params.tenantId,
    responses: { [params.key]: params.response },
    actor: params.actor,
  });
  return { answered: result.found && result.accepted.includes(params.key), resumed: result.resumed };
}
