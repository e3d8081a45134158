import type { InputResponse } from "@runifold/sdk";
import { cancelRun, type ProvideInputResult, provideInput } from "@runifold/sdk";
import type { SqlHandle } from "../../db/client";
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
