import "server-only";
import type { SqlHandle } from "@runifold/store";
import type { Operator } from "../../auth";
import { findTaskTenant, readTaskRecord } from "../../tasks";
import { type FormField, fieldsFromSchema } from "../schema-form";

export type TaskInboxView = {
  taskId: string;
  workflow: string;
  status: string;
  /** The unanswered requests, each with its form (empty once answered or when the task is not waiting). */
  items: { key: string; message: string; fields: FormField[] }[];
};

/**
 * One task's inbox forms: where a webhook's `task.input_required` link lands
 * (`/inbox/<task id>`). A task outside the operator's tenants is undefined, like a missing one.
 */
export async function presentTaskInbox(sql: SqlHandle, operator: Operator, taskId: string): Promise<TaskInboxView | undefined> {
  const tenantId = await findTaskTenant(sql, { taskId, scope: operator.tenantIds });
  if (!tenantId) return undefined;
  const record = await readTaskRecord(sql, { tenantId, taskId });
  if (!record) return undefined;
  return {
    taskId,
    workflow: record.workflowKey,
    status: record.status,
    items: Object.entries(record.pendingInputs ?? {}).map(([key, request]) => ({
      key,
      message: request.params.message,
      fields: fieldsFromSchema(request.params.requestedSchema),
    })),
  };
}
