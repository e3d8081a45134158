-- Approval webhook events (issue 30, DESIGN §8): task.approval_requested, task.approval_decided and
-- task.approval_expired join the events a subscription may ask for. The deliveries are written by the
-- approval operations themselves, in their own transaction (packages/sdk/src/approvals/webhook-events.ts).
ALTER TABLE "webhook_subscriptions" DROP CONSTRAINT "webhook_subscriptions_events_known";--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_events_known" CHECK ("webhook_subscriptions"."events" <@ ARRAY['task.input_required', 'task.failed', 'task.completed', 'task.cancelled', 'task.approval_requested', 'task.approval_decided', 'task.approval_expired']::text[] AND cardinality("webhook_subscriptions"."events") > 0);
