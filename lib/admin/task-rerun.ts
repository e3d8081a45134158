import { z } from "zod";
import { AppError } from "../errors";
import { rerunTaskInScope } from "../tasks";
import { type AdminContext, actorLabel } from "./actor";
import { audit } from "./audit";
import { parseInput } from "./parse-input";

export const ZRerunTask = z.object({ taskId: z.string().trim().min(1).max(100) });

export type RerunResult = { taskId: string; rerunId: string; tenantId: string };

/**
 * Reruns a finished task with the same input (lib/tasks/rerun-task.ts): a new task ID, linked both
 * ways in the two runs' histories, audited as `task.rerun`. `scope` is the tenants the caller may act
 * on (null: every tenant — an admin, or the CLI with database access); a task outside it is "not
 * found", exactly like a missing one. A task still running is refused (conflict): rerunning it would
 * race the original for the same work. So is a task of a disabled tenant (conflict): its rerun would
 * never be claimed while the tenant stays disabled.
 */
export async function rerunTask(
  ctx: AdminContext,
  input: z.input<typeof ZRerunTask> & { scope: string[] | null },
): Promise<RerunResult> {
  const { taskId } = parseInput(ZRerunTask, input);
  const result = await rerunTaskInScope(ctx.sql, { taskId, scope: input.scope, actor: actorLabel(ctx.actor) });
  if (result.outcome === "not_found") throw new AppError("not_found", `No task ${taskId}.`);
  if (result.outcome === "not_terminal") {
    throw new AppError(
      "conflict",
      `Task ${taskId} is still ${result.status}; only a finished task (completed, failed or cancelled) can be rerun.`,
    );
  }
  if (result.outcome === "tenant_disabled")
    throw new AppError("conflict", `Task ${taskId} belongs to a disabled tenant; enable the tenant to rerun it.`);
  await audit(ctx, "task.rerun", { tenantId: result.tenantId, taskId, rerunId: result.rerunId });
  return { taskId, rerunId: result.rerunId, tenantId: result.tenantId };
}
