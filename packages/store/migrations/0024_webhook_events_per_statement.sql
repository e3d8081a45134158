-- Webhook events (0015_webhooks) cost nothing for a tenant without a subscription. The row trigger
-- ran its PL/pgSQL function (an AFTER event queued, then an INSERT … SELECT that found nothing) for
-- every run reaching input_required, failed, completed or cancelled: 13 % of the store's work per
-- one-step run in the bench, where no tenant subscribes. Its WHEN clause now also asks whether the
-- run's tenant has an enabled subscription (one index probe, evaluated as the row is updated), so no
-- event is queued and no function runs otherwise; with a subscription everything is as before — the
-- delivery rows are still written inside the engine's own transition statement.
CREATE OR REPLACE FUNCTION runifold_tenant_subscribes(tenant uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.tenant_id = tenant AND s.enabled)
$$;--> statement-breakpoint
DROP TRIGGER runs_webhook_events ON runs;--> statement-breakpoint
CREATE TRIGGER runs_webhook_events AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('waiting_input', 'failed', 'completed', 'cancelled')
        AND NEW.workflow_name <> 'runifold-webhook-delivery'
        AND runifold_tenant_subscribes(NEW.tenant_id))
  EXECUTE FUNCTION runifold_webhook_events();
