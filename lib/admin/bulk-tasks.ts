import type { RunStatus } from "@runifold/sdk";
import { z } from "zod";
import { cancelTaskInScope, rerunTaskInScope } from "../tasks";
import { type AdminContext, actorLabel } from "./actor";
import { audit } from "./audit";
import { parseInput } from "./parse-input";

/** At most this many tasks per bulk action: one request stays short, and a stray "select all" stays small. */
export const BULK_TASK_LIMIT = 100;

export const ZBulkTasks = z.object({
  action: z.enum(["cancel", "rerun"]),
  taskIds: z
    .array(z.string().max(100))
    .min(1, "select at least one task")
    .max(BULK_TASK_LIMIT, `at most ${BULK_TASK_LIMIT} tasks per action`),
});

/** What happened to one task of a bulk action. */
export type BulkTaskResult =
  | { taskId: string; outcome: "cancelled" }
  | { taskId: string; outcome: "already_finished" }
  | { taskId: string; outcome: "not_found" }
  | { taskId: string; outcome: "rerun"; rerunId: string }
  | { taskId: string; outcome: "not_finished"; status: RunStatus }
  | { taskId: string; outcome: "tenant_disabled" };

/**
 * Cancels or reruns each listed task the caller may act on, one at a time, and answers per ID in
 * the order given (duplicates once). `scope` is the caller's tenants (null: every tenant); an ID
 * outside it answers `not_found`, exactly like one that never existed or is malformed, so a bulk
 * action cannot probe other tenants. Each task's change is audited on its own (`task.cancel`,
 * `task.rerun`, with `bulk: true`), as the single actions do.
 */
export async function bulkTaskAction(
  ctx: AdminContext,
  input: z.input<typeof ZBulkTasks> & { scope: string[] | null },
): Promise<BulkTaskResult[]> {
  const { action, taskIds } = parseInput(ZBulkTasks, input);
  const actor = actorLabel(ctx.actor);
  const results: BulkTaskResult[] = [];
  for (const taskId of new Set(taskIds)) {
    if (action === "cancel") {
      const result = await cancelTaskInScope(ctx.sql, { taskId, scope: input.scope, actor });
      if (result.outcome === "not_found") {
        results.push({ taskId, outcome: "not_found" });
        continue;
      }
      await audit(ctx, "task.cancel", { tenantId: result.tenantId, taskId, outcome: result.outcome, bulk: true });
      results.push({ taskId, outcome: result.outcome === "cancelled" ? "cancelled" : "already_finished" });
    } else {
      const result = await rerunTaskInScope(ctx.sql, { taskId, scope: input.scope, actor });
      if (result.outcome === "not_found") results.push({ taskId, outcome: "not_found" });
      else if (result.outcome === "not_terminal") results.push({ taskId, outcome: "not_finished", status: result.status });
      else if (result.outcome === "tenant_disabled") results.push({ taskId, outcome: "tenant_disabled" });
      else {
        await audit(ctx, "task.rerun", { tenantId: result.tenantId, taskId, rerunId: result.rerunId, bulk: true });
        results.push({ taskId, outcome: "rerun", rerunId: result.rerunId });
      }
    }
  }
  return results;
}
