CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subscription_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"event" text NOT NULL,
	"task_id" uuid,
	"task" jsonb,
	"run_id" uuid,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"attempt_log" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret_sealed" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"secret_rotated_at" timestamp (3) with time zone,
	CONSTRAINT "webhook_subscriptions_events_known" CHECK ("webhook_subscriptions"."events" <@ ARRAY['task.input_required', 'task.failed', 'task.completed', 'task.cancelled']::text[] AND cardinality("webhook_subscriptions"."events") > 0)
);
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_webhook_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."webhook_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subscription_idx" ON "webhook_deliveries" USING btree ("subscription_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_tenant_idx" ON "webhook_subscriptions" USING btree ("tenant_id","created_at");--> statement-breakpoint
-- Webhook events (docs/webhooks.md). A task entering input_required, failed, completed or cancelled
-- records one delivery row per enabled subscription of its tenant that wants the event, inside the
-- engine's own transition statement: it commits with the transition or not at all, so no event is
-- ever missed or invented, and the engine's one guarded write per transition stays one statement.
-- The WHEN clause keeps every other transition (queued → leased, …) free of any cost; the runs of
-- the delivery workflow itself never notify (a failed delivery must not announce itself).
CREATE OR REPLACE FUNCTION runifold_webhook_events() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  event text := CASE NEW.status
    WHEN 'waiting_input' THEN 'task.input_required'
    WHEN 'failed' THEN 'task.failed'
    WHEN 'completed' THEN 'task.completed'
    WHEN 'cancelled' THEN 'task.cancelled'
  END;
BEGIN
  INSERT INTO webhook_deliveries (subscription_id, tenant_id, event, task_id, task)
  SELECT s.id, NEW.tenant_id, event, NEW.id, jsonb_strip_nulls(jsonb_build_object(
           'status', CASE NEW.status WHEN 'waiting_input' THEN 'input_required' ELSE NEW.status END,
           'tool', (SELECT r.tool_name FROM routes r WHERE r.id = NEW.route_id),
           'workflow', NEW.workflow_key,
           'statusMessage', NEW.status_message,
           -- The requests this wait is about (suspendForInput inserts them before it parks the run).
           'inputRequests', CASE WHEN NEW.status = 'waiting_input' THEN (
             SELECT jsonb_agg(jsonb_build_object('key', i.key, 'message', i.request->'params'->>'message',
                                                 'requestedSchema', i.request->'params'->'requestedSchema')
                              ORDER BY i.requested_at, i.key)
             FROM run_inputs i WHERE i.run_id = NEW.id AND i.response IS NULL) END))
  FROM webhook_subscriptions s
  WHERE s.tenant_id = NEW.tenant_id AND s.enabled AND event = ANY (s.events);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER runs_webhook_events AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('waiting_input', 'failed', 'completed', 'cancelled')
        AND NEW.workflow_name <> 'runifold-webhook-delivery')
  EXECUTE FUNCTION runifold_webhook_events();
--> statement-breakpoint
-- Every delivery is a run of the built-in workflow runifold-webhook-delivery@1 (served by
-- runifold-worker unless --no-webhooks), created here in the same statement as the row: whoever
-- inserts a delivery (the trigger above, "Send test") cannot leave one without its run. This mirrors
-- packages/sdk/src/ops/create-run.ts (the row, its `created` event, the wake-up); a new version of
-- the delivery workflow needs a migration that changes the version here.
CREATE OR REPLACE FUNCTION runifold_webhook_delivery_run() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.run_id := gen_random_uuid();
  INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, claimable_at)
  VALUES (NEW.run_id, NEW.tenant_id, 'runifold-webhook-delivery', 1, 'runifold-webhook-delivery@1', 'queued',
          jsonb_build_object('deliveryId', NEW.id), 'webhook', now());
  INSERT INTO run_events (run_id, type, payload)
  VALUES (NEW.run_id, 'created', jsonb_build_object('workflow', 'runifold-webhook-delivery@1', 'origin', 'webhook',
                                                    'deliveryId', NEW.id));
  PERFORM pg_notify('runifold_wake', 'runifold-webhook-delivery@1');
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_run BEFORE INSERT ON webhook_deliveries
  FOR EACH ROW WHEN (NEW.run_id IS NULL)
  EXECUTE FUNCTION runifold_webhook_delivery_run();
