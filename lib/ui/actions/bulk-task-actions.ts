import "server-only";
import { type BulkTaskResult, bulkTaskAction as runBulkTaskAction, ZBulkTasks } from "../../admin";
import { operatorAction } from "./operator-action";

/**
 * "Cancel selected" / "Rerun selected" on the task list: at most BULK_TASK_LIMIT IDs, each checked
 * against the operator's tenants by the service (lib/admin bulkTaskAction), answered per ID — a
 * foreign or unknown ID is `not_found`, never an error that would stop the others.
 */
export const bulkTaskAction = operatorAction(
  ZBulkTasks,
  ({ sql, actor, operator }, input): Promise<BulkTaskResult[]> =>
    runBulkTaskAction({ sql, actor }, { ...input, scope: operator.tenantIds }),
);
