-- Compensation of cancelled runs (issue 32, docs/authoring.md "Compensation"). Both MCP eras want a
-- cancelled task `cancelled` before the cancel is answered, so a cancelled run cannot stay open for its
-- workflow's onFailure hook. Instead, cancelling a run whose worker marked it `on_failure` (its
-- workflow has a hook, and its body has started: a run cancelled before any worker took it did nothing
-- to undo) queues a run of its own to compensate it: same tenant, workflow version and input, origin
-- `compensation`, `compensates_run_id` naming the cancelled run, no credential (no MCP client lists it).
-- The worker runs the hook there, durably, and that run ends completed (or failed with the hook's cause).
ALTER TABLE runs ADD COLUMN on_failure boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE runs ADD COLUMN compensates_run_id uuid;--> statement-breakpoint
CREATE OR REPLACE FUNCTION runifold_compensate_cancelled() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  compensation uuid := gen_random_uuid();
BEGIN
  INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, ttl_ms,
                    claimable_at, compensates_run_id)
  VALUES (compensation, NEW.tenant_id, NEW.workflow_name, NEW.workflow_version, NEW.workflow_key, 'queued', NEW.input,
          'compensation', NEW.ttl_ms, now(), NEW.id);
  INSERT INTO run_events (run_id, type, payload)
  VALUES (compensation, 'created', jsonb_build_object('workflow', NEW.workflow_key, 'origin', 'compensation',
                                                       'compensates', NEW.id)),
         (NEW.id, 'log', jsonb_build_object('message', 'onFailure: compensating in run ' || compensation::text,
                                             'data', jsonb_build_object('compensationRunId', compensation)));
  PERFORM pg_notify('runifold_wake', NEW.workflow_key);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER runs_compensate_cancelled AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (NEW.status = 'cancelled' AND OLD.status IS DISTINCT FROM NEW.status AND NEW.on_failure)
  EXECUTE FUNCTION runifold_compensate_cancelled();--> statement-breakpoint
-- A compensation run is no task of any client: its end announces nothing (otherwise as 0040).
DROP TRIGGER runs_webhook_events ON runs;--> statement-breakpoint
CREATE TRIGGER runs_webhook_events AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('waiting_input', 'failed', 'completed', 'cancelled')
        AND NEW.workflow_name <> 'runifold-webhook-delivery'
        AND NEW.workflow_name NOT LIKE 'runifold-webhook-delivery.%'
        AND NEW.origin <> 'compensation'
        AND runifold_tenant_subscribes(NEW.tenant_id))
  EXECUTE FUNCTION runifold_webhook_events();
