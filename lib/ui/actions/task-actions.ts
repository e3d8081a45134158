import "server-only";
import type { InputResponse } from "@runifold/sdk";
import { cancelRun, provideInput } from "@runifold/sdk";
import { z } from "zod";
import type { OperatorContext } from "../../auth";
import { requireOperator } from "../../auth";
import { AppError } from "../../errors";
import { findPendingInput, findTaskTenant } from "../../tasks";
import { fieldsFromSchema, type RawValue, validateForm } from "../schema-form";
import { audit } from "./audit";
import { parseInput } from "./parse-input";

const ZCancel = z.object({ taskId: z.string() });

/** Cancels a task the operator may see; another tenant's task is "not found" like a missing one. */
export async function cancelTaskAction(
  ctx: OperatorContext,
  input: unknown,
): Promise<{ outcome: "cancelled" | "already_terminal" }> {
  const operator = await requireOperator(ctx, { mutating: true });
  const { taskId } = parseInput(ZCancel, input);
  const tenantId = await findTaskTenant(ctx.sql, { taskId, scope: operator.tenantIds });
  if (!tenantId) throw new AppError("not_found");
  const result = await cancelRun(ctx.sql, {
    runId: taskId,
    tenantId,
    reason: "Cancelled by operator",
    actor: `operator:${operator.id}`,
  });
  if (result.outcome === "not_found") throw new AppError("not_found");
  audit("task.cancel", { operatorId: operator.id, tenantId, taskId, outcome: result.outcome });
  return { outcome: result.outcome };
}

const ZAnswer = z.object({
  taskId: z.string(),
  key: z.string().min(1).max(200),
  action: z.enum(["accept", "decline"]),
  values: z.record(z.string(), z.union([z.string(), z.boolean(), z.array(z.string())])).default({}),
});

export type AnswerOutcome = { ok: true; resumed: boolean } | { ok: false; errors: Record<string, string> };

/**
 * Answers one input request through provideInput — the same operation MCP tasks/update uses — as
 * actor `operator:<id>`. The schema is re-read from the store and the values validated here again:
 * the browser's validation is only a convenience.
 */
export async function answerInputAction(ctx: OperatorContext, input: unknown): Promise<AnswerOutcome> {
  const operator = await requireOperator(ctx, { mutating: true });
  const { taskId, key, action, values } = parseInput(ZAnswer, input);
  const pending = await findPendingInput(ctx.sql, { taskId, key, scope: operator.tenantIds });
  if (!pending) throw new AppError("not_found", "This request is no longer waiting for an answer.");
  let response: InputResponse = { action: "decline" };
  if (action === "accept") {
    const fields = fieldsFromSchema(pending.request.params.requestedSchema);
    const { content, errors } = validateForm(fields, values as Record<string, RawValue>);
    if (Object.keys(errors).length > 0) return { ok: false, errors };
    response = { action: "accept", content };
  }
  const result = await provideInput(ctx.sql, {
    runId: taskId,
    tenantId: pending.tenant_id,
    responses: { [key]: response },
    actor: `operator:${operator.id}`,
  });
  if (!result.found || !result.accepted.includes(key))
    throw new AppError("not_found", "This request is no longer waiting for an answer.");
  audit("task.answer", { operatorId: operator.id, tenantId: pending.tenant_id, taskId, key, action });
  return { ok: true, resumed: result.resumed };
}
