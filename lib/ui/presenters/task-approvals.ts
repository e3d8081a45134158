import "server-only";
import { type ApprovalDecision, describeApprovers, type NormalizedPolicy } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { isUuid } from "@runifold/store";
import type { Operator } from "../../auth";

/** One approval of a task as its page shows it: the request, the policy in words, the history, the receipt. */
export type TaskApproval = {
  key: string;
  message: string;
  status: "open" | "approved" | "rejected" | "expired";
  outcome: string | null;
  approvers: string;
  quorum: number;
  rejectQuorum: number;
  openedAt: string;
  expiresAt: string | null;
  escalatedAt: string | null;
  settledAt: string | null;
  decisions: ApprovalDecision[];
  receipt: string | null;
};

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The approvals of a task the operator sees (admins: any tenant's; members: their tenants'), oldest
 * first; another tenant's task has none, exactly like a task without approvals.
 */
export async function presentTaskApprovals(sql: SqlHandle, operator: Operator, taskId: string): Promise<TaskApproval[]> {
  if (!isUuid(taskId)) return [];
  const rows = await sql.unsafe<(Omit<TaskApproval, "approvers" | "quorum" | "rejectQuorum"> & { policy: NormalizedPolicy })[]>(
    `SELECT a.key, a.message, a.status, a.outcome, a.policy, ${ISO("a.opened_at")} AS "openedAt",
            ${ISO("a.expires_at")} AS "expiresAt", ${ISO("a.escalated_at")} AS "escalatedAt", ${ISO("a.settled_at")} AS "settledAt",
            a.receipt,
            coalesce((SELECT jsonb_agg(jsonb_build_object('operatorId', d.operator_id, 'email', d.email, 'channel', d.channel,
                        'decision', d.decision, 'comment', d.comment, 'at', ${ISO("d.at")}) ORDER BY d.at, d.id)
                      FROM approval_decisions d WHERE d.run_id = a.run_id AND d.key = a.key), '[]'::jsonb) AS decisions
     FROM approvals a JOIN runs r ON r.id = a.run_id
     WHERE a.run_id = $1 AND ($2::uuid[] IS NULL OR r.tenant_id = ANY ($2::uuid[]))
     ORDER BY a.opened_at, a.key`,
    [taskId, operator.tenantIds],
  );
  return rows.map(({ policy, ...row }) => ({
    ...row,
    approvers: describeApprovers(policy, row.escalatedAt !== null),
    quorum: policy.quorum,
    rejectQuorum: policy.rejectQuorum,
  }));
}
