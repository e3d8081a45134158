-- Team workers never break webhooks (issue 34). A worker without the web's RUNIFOLD_WEBHOOK_KEY (or
-- NEXTAUTH_SECRET) claimed delivery runs it could not open the secret of, and failed them for every
-- tenant. Claims pick runs by workflow name and version only, so the run now says which key it needs
-- in its name: a subscription's sealed secret names the tag of the key it was sealed under
-- (`v2.<tag>.<bytes>`, packages/sdk/src/webhooks/secret.ts), and its delivery runs are runs of
-- `runifold-webhook-delivery.<tag>@1`, which only workers holding that key serve. Secrets sealed
-- before tags (`v1.<bytes>`) keep the plain `runifold-webhook-delivery@1`, which every worker with a
-- key serves, as before. Otherwise as 0015: the row, its `created` event and the wake-up.
CREATE OR REPLACE FUNCTION runifold_webhook_delivery_run() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  sealed text := (SELECT s.secret_sealed FROM webhook_subscriptions s WHERE s.id = NEW.subscription_id);
  workflow text := 'runifold-webhook-delivery'
    || CASE WHEN split_part(sealed, '.', 1) = 'v2' AND split_part(sealed, '.', 2) ~ '^[0-9a-f]{16}$'
            THEN '.' || split_part(sealed, '.', 2) ELSE '' END;
BEGIN
  NEW.run_id := gen_random_uuid();
  INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, claimable_at)
  VALUES (NEW.run_id, NEW.tenant_id, workflow, 1, workflow || '@1', 'queued',
          jsonb_build_object('deliveryId', NEW.id), 'webhook', now());
  INSERT INTO run_events (run_id, type, payload)
  VALUES (NEW.run_id, 'created', jsonb_build_object('workflow', workflow || '@1', 'origin', 'webhook',
                                                    'deliveryId', NEW.id));
  PERFORM pg_notify('runifold_wake', workflow || '@1');
  RETURN NEW;
END $$;
--> statement-breakpoint
-- The runs of the delivery workflow, under any key's name, never notify (a failed delivery must not
-- announce itself); otherwise as 0024.
DROP TRIGGER runs_webhook_events ON runs;--> statement-breakpoint
CREATE TRIGGER runs_webhook_events AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('waiting_input', 'failed', 'completed', 'cancelled')
        AND NEW.workflow_name <> 'runifold-webhook-delivery'
        AND NEW.workflow_name NOT LIKE 'runifold-webhook-delivery.%'
        AND runifold_tenant_subscribes(NEW.tenant_id))
  EXECUTE FUNCTION runifold_webhook_events();
