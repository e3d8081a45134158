import type { SqlHandle } from "@runifold/store";

/** The approval events of the audit trail (docs/approvals.md "Audit"). */
export type ApprovalAuditAction =
  | "approval.requested"
  | "approval.decided"
  | "approval.refused"
  | "approval.escalated"
  | "approval.reminded"
  | "approval.expired"
  | "approval.settled";

/**
 * Stores one approval event in `audit_events`, in the caller's transaction, so the event and what
 * it records commit together (a refusal commits its event and nothing else). The actor is
 * `operator:<id>` for a person, `engine` for what the store's clock did (requested, escalated,
 * reminded, expired).
 */
export async function auditApproval(
  tx: SqlHandle,
  action: ApprovalAuditAction,
  target: { tenantId: string; runId: string; key: string },
  fields: Record<string, string | number | boolean | null> = {},
  operatorId: string | null = null,
): Promise<void> {
  await tx.unsafe(
    `INSERT INTO audit_events (actor, operator_id, action, tenant_id, fields)
     VALUES ($1, $2, $3, $4, $5::text::jsonb)`,
    [
      operatorId ? `operator:${operatorId}` : "engine",
      operatorId,
      action,
      target.tenantId,
      JSON.stringify({ tenantId: target.tenantId, taskId: target.runId, key: target.key, ...fields }),
    ],
  );
}
