import "server-only";
import { listApprovals, type OpenApproval } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type { Operator } from "../../auth";
import { listVisibleTenants } from "./tenants";

export type ApprovalItem = OpenApproval & { tenantSlug: string };

/** The Approvals page: what the signed-in person may decide now, and, apart, what their tenants wait on from others. */
export type ApprovalsView = {
  mine: ApprovalItem[];
  others: ApprovalItem[];
  /** Whether approvers are emailed: RUNIFOLD_SMTP_URL, which the web and the workers are given alike (deploy.md). */
  emailOn: boolean;
};

export async function presentApprovalsPage(sql: SqlHandle, operator: Operator): Promise<ApprovalsView> {
  const tenants = await listVisibleTenants(sql, operator);
  const items: ApprovalItem[] = [];
  for (const tenant of tenants) {
    const open = await listApprovals(sql, { operatorId: operator.id, tenantId: tenant.id }, { all: true, channel: "console" });
    items.push(...open.map((approval) => ({ ...approval, tenantSlug: tenant.slug })));
  }
  return {
    mine: items.filter((item) => item.canDecide),
    others: items.filter((item) => !item.canDecide),
    emailOn: Boolean(process.env.RUNIFOLD_SMTP_URL),
  };
}
