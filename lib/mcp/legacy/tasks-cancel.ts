import { cancelTaskByHandle, taskStatus } from "../../tasks";
import { McpError, RPC } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { isTerminalRecord, legacyTask, requireBoundTask, taskIdOf, taskNotFound } from "./bound-task";

/**
 * tasks/cancel (2025-11-25 "Task Cancellation"): the run is `cancelled` in the store before the
 * answer goes out, and stays so even if the work finishes (the engine refuses a cancelled run's
 * later writes). A task already terminal MUST be refused with -32602 — the opposite of the
 * extension's idempotent ack. The answer is the Task itself, without related-task `_meta`.
 */
export async function tasksCancel(deps: McpDeps, call: McpCall, params: Record<string, unknown>) {
  const taskId = taskIdOf(params);
  const record = await requireBoundTask(deps.sql, call.principal, taskId, "tasks/cancel");
  if (isTerminalRecord(record)) throw alreadyTerminal(taskStatus(record, "legacy"));
  const outcome = await cancelTaskByHandle(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId,
    actor: call.principal.actor,
  });
  if (outcome === "not_found") throw taskNotFound();
  // Re-read either way: if the worker finished first, the error names the status it ended with.
  const after = await requireBoundTask(deps.sql, call.principal, taskId);
  if (outcome === "already_terminal") throw alreadyTerminal(taskStatus(after, "legacy"));
  deps.logger.info("legacy task cancelled", { taskId, keyId: call.principal.keyId });
  return legacyTask(after);
}

function alreadyTerminal(status: string): McpError {
  return new McpError(RPC.invalidParams, `Cannot cancel task: already in terminal status '${status}'`);
}
