import { jsonParam, type SqlHandle } from "@runifold/store";

/** The approval events of the signed webhooks (docs/webhooks.md, docs/approvals.md). */
export type ApprovalWebhookEvent = "task.approval_requested" | "task.approval_decided" | "task.approval_expired";

/** What a receiver learns about the approval beside the task: enough to route it (Slack, Teams) without a credential. */
export type ApprovalEventDetail = {
  key: string;
  message?: string;
  approvers?: string;
  quorum?: number;
  decision?: { email: string; decision: string; channel: string; comment: string | null };
  outcome?: string | null;
  expiresAt?: string | null;
};

/**
 * Queues one delivery per enabled subscription of the run's tenant that asked for `event`, in the
 * caller's transaction — as the runs trigger does for status events (migration 0015): the delivery
 * row's own trigger starts its delivery run, so an event commits with the change it reports or not
 * at all. Nothing is written for a tenant without such a subscription.
 */
export async function queueApprovalEvent(
  tx: SqlHandle,
  event: ApprovalWebhookEvent,
  runId: string,
  approval: ApprovalEventDetail,
): Promise<void> {
  await tx.unsafe(
    `INSERT INTO webhook_deliveries (subscription_id, tenant_id, event, task_id, task)
     SELECT s.id, r.tenant_id, $2, r.id, jsonb_strip_nulls(jsonb_build_object(
              'status', CASE WHEN r.status IN ('completed', 'failed', 'cancelled') THEN r.status ELSE 'working' END,
              'tool', (SELECT ro.tool_name FROM routes ro WHERE ro.id = r.route_id),
              'workflow', r.workflow_key,
              'approval', $3::text::jsonb))
     FROM runs r JOIN webhook_subscriptions s ON s.tenant_id = r.tenant_id AND s.enabled AND $2 = ANY (s.events)
     WHERE r.id = $1`,
    [runId, event, jsonParam(approval)],
  );
}
