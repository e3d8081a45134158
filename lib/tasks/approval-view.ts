import { readCallerApproval } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { approvalForm, type Caller, operatorOfKeyId } from "../approvals";
import type { TaskRecord } from "./queries/task-record";

/**
 * The task as this caller sees it: a run waiting for an approval its credential's person may decide
 * now (readCallerApproval: open, eligible on the `mcp` channel, not decided yet) reads as waiting for
 * input — `input_required` in both eras with the decision form as its one pending request, so
 * tasks/get, tasks/result's elicitation/create, inputRequests and the handles all carry it the way
 * they carry any question. Everyone else (other credentials, ineligible people, someone who decided
 * already) gets the record as stored: `working`. The store is not changed; wait_detail still names
 * the approval, which is how an answer to its key is routed to decideApproval (decideAsCaller).
 */
export async function presentApprovalToCaller(sql: SqlHandle, caller: Caller, record: TaskRecord): Promise<TaskRecord> {
  const detail = record.waitDetail;
  if (record.status !== "waiting_signal" || !detail || !("approval" in detail)) return record;
  const operatorId = await operatorOfKeyId(sql, caller.keyId);
  if (!operatorId) return record;
  const approval = await readCallerApproval(sql, { operatorId, tenantId: caller.tenantId }, record.id, detail.approval.key);
  if (!approval) return record;
  return { ...record, status: "waiting_input", pendingInputs: { [approval.key]: approvalForm(approval) } };
}

/** The approval key a task waits on, if it waits on one (ctx.requestApproval parks with wait_detail.approval). */
export function approvalKeyOf(record: Pick<TaskRecord, "waitDetail">): string | undefined {
  const detail = record.waitDetail;
  return detail && "approval" in detail ? detail.approval.key : undefined;
}
