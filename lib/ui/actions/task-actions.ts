import "server-only";
import type { InputResponse } from "@runifold/sdk";
import { z } from "zod";
import { actorLabel, audit, cancelTask as cancelTaskAudited, type RerunResult, rerunTask } from "../../admin";
import { AppError } from "../../errors";
import { answerPendingInput, findPendingInput } from "../../tasks";
import { fieldsFromSchema, type RawValue, validateForm } from "../schema-form";
import { type OperatorActionContext, operatorAction } from "./operator-action";

const ZCancel = z.object({ taskId: z.string() });

/** Cancels a task the operator may see; another tenant's task is "not found" like a missing one. */
export const cancelTaskAction = operatorAction(ZCancel, cancelTask);

async function cancelTask(
  { sql, actor, operator }: OperatorActionContext,
  { taskId }: z.output<typeof ZCancel>,
): Promise<{ outcome: "cancelled" | "already_terminal" }> {
  const { outcome } = await cancelTaskAudited({ sql, actor }, { taskId, scope: operator.tenantIds });
  return { outcome };
}

const ZRerun = z.object({ taskId: z.string() });

/**
 * Reruns a finished task the operator may see (lib/admin rerunTask: same input, a new task, linked
 * both ways, audited); another tenant's task is "not found" like a missing one, a live one a conflict.
 */
export const rerunTaskAction = operatorAction(
  ZRerun,
  ({ sql, actor, operator }, { taskId }): Promise<RerunResult> =>
    rerunTask({ sql, actor }, { taskId, scope: operator.tenantIds }),
);

const ZAnswer = z.object({
  taskId: z.string(),
  key: z.string().min(1).max(200),
  action: z.enum(["accept", "decline"]),
  values: z.record(z.string(), z.union([z.string(), z.boolean(), z.array(z.string())])).default({}),
});

export type AnswerOutcome =
  | { ok: true; resumed: boolean; action: "accept" | "decline" }
  | { ok: false; errors: Record<string, string> };

/**
 * Answers one input request as actor `operator:<id>`, through the one answer path of every channel
 * (lib/tasks → provideInput). The schema is re-read from the store and the form's values validated
 * here again: the browser's validation is only a convenience.
 */
export const answerInputAction = operatorAction(ZAnswer, answerInput);

const NOT_WAITING = "This request is no longer waiting for an answer.";

async function answerInput(
  { sql, actor, operator }: OperatorActionContext,
  { taskId, key, action, values }: z.output<typeof ZAnswer>,
): Promise<AnswerOutcome> {
  const pending = await findPendingInput(sql, { taskId, key, scope: operator.tenantIds });
  if (!pending) throw new AppError("not_found", NOT_WAITING);
  let response: InputResponse = { action: "decline" };
  if (action === "accept") {
    const fields = fieldsFromSchema(pending.request.params.requestedSchema);
    const { content, errors } = validateForm(fields, values as Record<string, RawValue>);
    if (Object.keys(errors).length > 0) return { ok: false, errors };
    response = { action: "accept", content };
  }
  const tenantId = pending.tenant_id;
  const result = await answerPendingInput(sql, { taskId, tenantId, key, response, actor: actorLabel(actor) });
  if (!result.answered) throw new AppError("not_found", NOT_WAITING);
  await audit({ sql, actor }, "task.answer", { tenantId, taskId, key, action });
  return { ok: true, resumed: result.resumed, action };
}
