import type { WorkflowResult } from "@runifold/sdk";
import { decideAsCaller } from "../../approvals";
import { readBoundTaskHandle, type TaskRecord } from "../../tasks";
import type { McpCall, McpDeps } from "../mcp-deps";
import { handleResult } from "./task-handle";

export { approvalKeyOf } from "../../tasks";

/**
 * runifold_task_answer for an approval: the MCP caller decides as the person behind its credential
 * (docs/approvals.md) — `{action: "accept", content: {decision: "approve"|"reject", comment?}}`, a
 * decline being a rejection — through decideAsCaller, the one path every MCP input round uses too
 * (channel `mcp`: separation of duties keeps the requester out, `caller: "never"` keeps every caller
 * out); a refusal is a tool error the model can relay, audited, and records nothing.
 */
export async function answerApproval(
  deps: McpDeps,
  call: McpCall,
  record: TaskRecord,
  key: string,
  response: { action: string; content?: Record<string, unknown> },
): Promise<WorkflowResult> {
  const binding = { tenantId: call.principal.tenantId, keyId: call.principal.keyId };
  const result = await decideAsCaller(deps.sql, binding, record.id, key, response);
  switch (result.kind) {
    case "dismissed":
    case "invalid":
      return toolError(`An approval takes {"action": "accept", "content": {"decision": "approve" | "reject", "comment"?: "…"}}`);
    case "no_person":
      return toolError(result.message);
    case "not_found":
      return toolError(`Task ${record.id} has no approval '${key}'.`);
    case "refused":
      return toolError(`Your decision was not recorded: ${result.message}`);
  }
  const after = await readBoundTaskHandle(deps.sql, { ...binding, taskId: record.id });
  const decision = response.action === "decline" ? "reject" : response.content?.decision;
  const lead = `Decision '${decision}' on '${key}' recorded${result.outcome ? `: the approval is ${result.outcome}` : ""}`;
  return after ? handleResult(after, lead) : toolError(lead);
}

function toolError(text: string): WorkflowResult {
  return { content: [{ type: "text", text }], isError: true };
}
