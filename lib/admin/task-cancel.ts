import { z } from "zod";
import { AppError } from "../errors";
import { cancelTaskInScope } from "../tasks";
import { type AdminContext, actorLabel } from "./actor";
import { audit } from "./audit";
import { parseInput } from "./parse-input";

export const ZCancelTask = z.object({ taskId: z.string().trim().min(1).max(100) });

/**
 * Requests cancellation of a task within `scope` (the tenants the caller may act on; null: every
 * tenant), audited as `task.cancel`. A task outside the scope is "not found", exactly like a missing
 * one; a terminal task is left as it is (`already_terminal`).
 */
export async function cancelTask(
  ctx: AdminContext,
  input: z.input<typeof ZCancelTask> & { scope: string[] | null },
): Promise<{ outcome: "cancelled" | "already_terminal"; tenantId: string }> {
  const { taskId } = parseInput(ZCancelTask, input);
  const result = await cancelTaskInScope(ctx.sql, { taskId, scope: input.scope, actor: actorLabel(ctx.actor) });
  if (result.outcome === "not_found") throw new AppError("not_found");
  await audit(ctx, "task.cancel", { tenantId: result.tenantId, taskId, outcome: result.outcome });
  return result;
}
