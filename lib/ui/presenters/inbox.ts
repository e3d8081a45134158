import "server-only";
import type { SqlHandle } from "@runifold/store";
import type { Operator } from "../../auth";
import { listInbox } from "../../tasks";
import { type FormField, fieldsFromSchema } from "../schema-form";

export type InboxItem = { taskId: string; key: string; route: string; message: string; requestedAt: string; fields: FormField[] };

/** Every unanswered input request the operator may answer, each with its form fields. */
export async function presentInbox(sql: SqlHandle, operator: Operator): Promise<InboxItem[]> {
  const rows = await listInbox(sql, { scope: operator.tenantIds, limit: 200 });
  return rows.map((row) => ({
    taskId: row.run_id,
    key: row.key,
    route: `${row.tenant_slug}/${row.tool_name ?? row.workflow_key}`,
    message: row.request?.params?.message ?? "",
    requestedAt: new Date(row.requested_at).toISOString(),
    fields: fieldsFromSchema(row.request?.params?.requestedSchema),
  }));
}
