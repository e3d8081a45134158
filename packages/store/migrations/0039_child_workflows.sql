-- Child workflows (issue 32, ctx.child). A child is a run like any other (same tenant, its own task ID);
-- these columns link it to the run that started it and the history key of that start.
ALTER TABLE "runs" ADD COLUMN "parent_run_id" uuid;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "parent_key" text;--> statement-breakpoint
-- serves: a run's children (WHERE parent_run_id = $run: tasks/get `_meta`, the console's task page, the
-- cancel's propagation and its subtree lock, ops/cancel-run.ts), and the idempotent start: one child per
-- parent and history key, so a start re-run after a crash finds the run it created (ops/start-child.ts).
-- Partial: runs without a parent (nearly all) are not in it. No foreign key: retention purges runs one
-- by one, and a link to a purged run reads like an unknown task ID.
CREATE UNIQUE INDEX "runs_parent_key_idx" ON "runs" USING btree ("parent_run_id","parent_key") WHERE parent_run_id IS NOT NULL;--> statement-breakpoint
-- A child reaching a terminal state, however it got there (its result, a failure, a cancel, its deadline),
-- queues its parent if the parent is parked waiting for children (ctx.child(...).result(), ops/await-children.ts).
-- The parent's row is locked first, as the parent's park takes it (lockLeasedRun) before reading its
-- children: either the park sees this child terminal, or this sees the park and wakes it.
CREATE OR REPLACE FUNCTION runifold_child_ended() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  woken record;
BEGIN
  PERFORM 1 FROM runs WHERE id = NEW.parent_run_id FOR UPDATE;
  UPDATE runs SET status = 'queued', claimable_at = now(), wait_detail = NULL, updated_at = now()
   WHERE id = NEW.parent_run_id AND status = 'waiting_signal' AND wait_detail ? 'children'
   RETURNING id, workflow_key INTO woken;
  IF woken.id IS NOT NULL THEN
    INSERT INTO run_events (run_id, type, payload)
    VALUES (woken.id, 'child_ended', jsonb_build_object('taskId', NEW.id, 'status', NEW.status));
    PERFORM pg_notify('runifold_wake', woken.workflow_key), pg_notify('runifold_task', woken.id::text);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER runs_child_ended AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (NEW.parent_run_id IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('completed', 'failed', 'cancelled'))
  EXECUTE FUNCTION runifold_child_ended();--> statement-breakpoint
-- Cancelling a run cancels its unfinished children (and theirs, as each child's cancel fires this again),
-- whichever path cancelled it. A worker running a child learns it from the cancel NOTIFY, as for any cancel.
CREATE OR REPLACE FUNCTION runifold_cancel_children() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  child record;
BEGIN
  FOR child IN
    UPDATE runs SET status = 'cancelled', cancel_requested_at = now(), status_message = 'Cancelled with its parent task',
           claimable_at = NULL, lease_expires_at = NULL, wait_detail = NULL, finished_at = now(), updated_at = now()
     WHERE parent_run_id = NEW.id AND status NOT IN ('completed', 'failed', 'cancelled')
     RETURNING id
  LOOP
    INSERT INTO run_events (run_id, type, payload)
    VALUES (child.id, 'cancelled', jsonb_build_object('reason', 'Cancelled with its parent task', 'actor', 'parent:' || NEW.id::text));
    PERFORM pg_notify('runifold_task', child.id::text), pg_notify('runifold_cancel', child.id::text);
  END LOOP;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER runs_cancel_children AFTER UPDATE OF status ON runs
  FOR EACH ROW
  WHEN (NEW.status = 'cancelled' AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION runifold_cancel_children();
