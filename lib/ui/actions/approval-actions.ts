import "server-only";
import { decideApproval, MAX_COMMENT_CHARS } from "@runifold/sdk";
import { isUuid } from "@runifold/store";
import { z } from "zod";
import { AppError } from "../../errors";
import { type OperatorActionContext, operatorAction } from "./operator-action";

const ZDecide = z.object({
  taskId: z.string(),
  key: z.string().min(1).max(200),
  decision: z.enum(["approve", "reject"], "Choose approve or reject"),
  comment: z.string().trim().max(MAX_COMMENT_CHARS).optional(),
});

export type ConsoleDecision = { outcome: string | null; decisions: number };

/**
 * Approve or reject from the console's Approvals page, as the signed-in person (channel `console`).
 * The task's tenant must be one the operator sees — another tenant's task is "not found", like an
 * unknown one; decideApproval then checks the person against the policy under its locks, and a
 * refusal (audited there) comes back as the form's error.
 */
export const decideApprovalAction = operatorAction(ZDecide, decideFromConsole);

async function decideFromConsole(
  { sql, operator }: OperatorActionContext,
  { taskId, key, decision, comment }: z.output<typeof ZDecide>,
): Promise<ConsoleDecision> {
  const [row] = isUuid(taskId)
    ? await sql.unsafe<{ tenant_id: string }[]>("SELECT tenant_id FROM approvals WHERE run_id = $1 AND key = $2", [taskId, key])
    : [];
  if (!row || (operator.tenantIds !== null && !operator.tenantIds.includes(row.tenant_id)))
    throw new AppError("not_found", "No such approval.");
  const result = await decideApproval(
    sql,
    { operatorId: operator.id, tenantId: row.tenant_id },
    taskId,
    key,
    { decision, comment: comment || null },
    "console",
  );
  if (result.kind === "not_found") throw new AppError("not_found", "No such approval.");
  if (result.kind === "refused")
    throw new AppError(
      ["not_open", "expired", "already_decided"].includes(result.code) ? "conflict" : "forbidden",
      result.message,
    );
  return { outcome: result.outcome, decisions: result.decisions.length };
}
