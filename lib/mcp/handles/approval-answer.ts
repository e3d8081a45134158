import { decideApproval, type WorkflowResult } from "@runifold/sdk";
import { operatorOfPrincipal } from "../../approvals";
import { readBoundTaskHandle, type TaskRecord } from "../../tasks";
import type { McpCall, McpDeps } from "../mcp-deps";
import { handleResult } from "./task-handle";

/** The approval key a task waits on, if it waits on one (ctx.requestApproval parks with wait_detail.approval). */
export function approvalKeyOf(record: TaskRecord): string | undefined {
  const detail = record.waitDetail;
  return detail && "approval" in detail ? detail.approval.key : undefined;
}

/**
 * runifold_task_answer for an approval: the MCP caller decides as the person behind its credential
 * (docs/approvals.md) — `{action: "accept", content: {decision: "approve"|"reject", comment?}}`, a
 * decline being a rejection. decideApproval checks the person like every other channel (channel
 * `mcp`: separation of duties keeps the requester out, `caller: "never"` keeps every caller out);
 * a refusal is a tool error the model can relay, audited, and records nothing.
 */
export async function answerApproval(
  deps: McpDeps,
  call: McpCall,
  record: TaskRecord,
  key: string,
  response: { action: string; content?: Record<string, unknown> },
): Promise<WorkflowResult> {
  const content = response.content ?? {};
  const decision = response.action === "decline" ? "reject" : content.decision;
  if (response.action === "cancel" || (decision !== "approve" && decision !== "reject"))
    return toolError(`An approval takes {"action": "accept", "content": {"decision": "approve" | "reject", "comment"?: "…"}}`);
  const operatorId = await operatorOfPrincipal(deps.sql, call.principal);
  if (!operatorId) return toolError("Approvals are decided by people: this credential has no operator behind it.");
  const comment = typeof content.comment === "string" ? content.comment : null;
  const result = await decideApproval(
    deps.sql,
    { operatorId, tenantId: call.principal.tenantId },
    record.id,
    key,
    { decision, comment },
    "mcp",
  );
  if (result.kind === "not_found") return toolError(`Task ${record.id} has no approval '${key}'.`);
  if (result.kind === "refused") return toolError(`Your decision was not recorded: ${result.message}`);
  const after = await readBoundTaskHandle(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId: record.id,
  });
  const lead = `Decision '${decision}' on '${key}' recorded${result.outcome ? `: the approval is ${result.outcome}` : ""}`;
  return after ? handleResult(after, lead) : toolError(lead);
}

function toolError(text: string): WorkflowResult {
  return { content: [{ type: "text", text }], isError: true };
}
