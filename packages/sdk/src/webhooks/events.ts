import type { ApprovalEventDetail } from "../approvals/webhook-events";

/**
 * The webhook vocabulary shared by the worker (which delivers) and the app (which subscribes):
 * event names, the built-in delivery workflow's identity and the payload's shape (docs/webhooks.md).
 */

/** The task events a subscription may ask for; the migration's CHECK and trigger use the same list. */
export const WEBHOOK_EVENTS = [
  "task.input_required",
  "task.failed",
  "task.completed",
  "task.cancelled",
  "task.approval_requested",
  "task.approval_decided",
  "task.approval_expired",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** What "Send test" sends: no task, only to prove the URL and the signature. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

/**
 * The built-in workflow that delivers one webhook. Its name and version are also written in the
 * migration that creates delivery runs (packages/store/migrations/0039_webhook_key_tags.sql): both
 * change together.
 */
export const WEBHOOK_DELIVERY_WORKFLOW = { name: "runifold-webhook-delivery", version: 1 } as const;

/**
 * The delivery workflow's name for the subscriptions sealed under the key with this tag
 * (`runifold-webhook-delivery.<tag>`), or the plain name for those sealed before tags: the run
 * created for a delivery takes its subscription's, so a worker only ever claims deliveries whose
 * secret its own key opens (delivery-workflow.ts).
 */
export function webhookDeliveryWorkflowName(keyTag: string | undefined): string {
  return keyTag ? `${WEBHOOK_DELIVERY_WORKFLOW.name}.${keyTag}` : WEBHOOK_DELIVERY_WORKFLOW.name;
}

/** The task as the delivery row snapshotted it at the transition (the runs trigger builds it). */
export type WebhookTaskSnapshot = {
  status: string;
  tool?: string;
  workflow?: string;
  statusMessage?: string;
  inputRequests?: { key: string; message?: string; requestedSchema?: unknown }[];
  /** task.approval_*: the approval the event is about (approvals/webhook-events.ts). */
  approval?: ApprovalEventDetail;
};

/** The JSON body a receiver gets. */
export type WebhookPayload = {
  id: string;
  type: string;
  timestamp: string;
  tenant: string;
  task?: {
    taskId: string;
    tool: string | null;
    workflow?: string;
    status: string;
    statusMessage?: string;
    /** input_required: the first outstanding request (the usual case: one at a time). */
    inputRequest?: { key: string; message?: string; requestedSchema?: unknown };
    /** input_required: every outstanding request. */
    inputRequests?: { key: string; message?: string; requestedSchema?: unknown }[];
    /** task.approval_*: its key, and the message and policy in words (requested), the decision (decided), the outcome. */
    approval?: ApprovalEventDetail;
    /** The console: the inbox form for input_required, the task page otherwise (absent without RUNIFOLD_PUBLIC_URL). */
    link?: string;
  };
};

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}
