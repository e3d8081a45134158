import { type CallerApproval, type DecideResult, decideApproval, type InputRequest, MAX_COMMENT_CHARS } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { operatorOfKeyId } from "./person-of-principal";

/** The credential an MCP task is bound to (lib/tasks/task-binding.ts): whose person decides. */
export type Caller = { tenantId: string; keyId: string };
type Property = Record<string, unknown>;

/** The `_meta` key of a decision form's params: `{ key }` of the approval it decides. */
export const APPROVAL_FORM_META = "io.runifold/approval";

/**
 * The decision form an eligible MCP caller is asked (an `elicitation/create` in form mode, so every
 * input path of both eras carries it as it carries a workflow's question): a required `decision`
 * ("approve" | "reject"), an optional `comment`, and the fields of the approval's own
 * requestedSchema beside them (never overriding those two).
 */
export function approvalForm(approval: CallerApproval): InputRequest {
  const extra = isObject(approval.requestedSchema) ? approval.requestedSchema : {};
  const extraProperties = isObject(extra.properties) ? (extra.properties as Record<string, Property>) : {};
  const extraRequired = Array.isArray(extra.required) ? extra.required.filter((k): k is string => typeof k === "string") : [];
  const { decision: _d, comment: _c, ...fields } = extraProperties;
  // Built apart: InputRequest's params type has no _meta, which every MCP request's params may carry.
  const params = {
    mode: "form" as const,
    // Marks the decision form, so a URL-only client is sent the Approvals page (lib/mcp/url-input.ts).
    _meta: { [APPROVAL_FORM_META]: { key: approval.key } },
    message: approval.message,
    requestedSchema: {
      type: "object" as const,
      properties: {
        decision: {
          type: "string",
          title: "Decision",
          description: `Approve or reject approval '${approval.key}'`,
          enum: ["approve", "reject"],
        },
        comment: { type: "string", title: "Comment", maxLength: MAX_COMMENT_CHARS },
        ...fields,
      },
      required: ["decision", ...extraRequired.filter((key) => key in fields)],
    },
  };
  return { method: "elicitation/create", params };
}

export type CallerDecision =
  | DecideResult
  | { kind: "invalid"; message: string }
  | { kind: "no_person"; message: string }
  | { kind: "dismissed" };

/**
 * An MCP caller's answer to an approval — runifold_task_answer, a legacy elicitation response, a
 * modern inputResponse or MRTR retry all come here — decided by decideApproval as the person behind
 * the credential on channel `mcp` (the same checks and audit as every channel: a refusal is audited
 * and records nothing). `accept` carries `{decision, comment?, ...fields}`; `decline` rejects;
 * `cancel` (the user dismissed the form) decides nothing.
 */
export async function decideAsCaller(
  sql: SqlHandle,
  caller: Caller,
  taskId: string,
  key: string,
  response: { action: string; content?: Record<string, unknown> },
): Promise<CallerDecision> {
  if (response.action === "cancel") return { kind: "dismissed" };
  const { decision: given, comment, ...fields } = response.content ?? {};
  const decision = response.action === "decline" ? "reject" : given;
  if (decision !== "approve" && decision !== "reject")
    return { kind: "invalid", message: `An approval takes {"decision": "approve" | "reject", "comment"?: "…"}` };
  const operatorId = await operatorOfKeyId(sql, caller.keyId);
  if (!operatorId)
    return { kind: "no_person", message: "Approvals are decided by people: this credential has no operator behind it." };
  return decideApproval(
    sql,
    { operatorId, tenantId: caller.tenantId },
    taskId,
    key,
    {
      decision,
      comment: typeof comment === "string" ? comment : null,
      fields: Object.keys(fields).length > 0 ? fields : null,
    },
    "mcp",
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
