-- History guards as docs/architecture.md states them. run_events may lose rows only through the
-- retention cleaner's purge (it sets runifold.purge inside its own fenced transaction, see
-- lib/retention/purge-batch.ts) and only for runs that are over: the flag alone no longer lets any
-- session erase the history of a live run.
CREATE OR REPLACE FUNCTION runifold_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('runifold.purge', true) = 'on'
     AND NOT EXISTS (SELECT 1 FROM runs WHERE id = OLD.run_id AND status NOT IN ('completed', 'failed', 'cancelled')) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'run_events is append-only' USING ERRCODE = 'check_violation';
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION runifold_history_no_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% cannot be truncated: history is removed run by run by the retention cleaner', TG_TABLE_NAME
    USING ERRCODE = 'check_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER run_events_no_truncate BEFORE TRUNCATE ON run_events
  FOR EACH STATEMENT EXECUTE FUNCTION runifold_history_no_truncate();
--> statement-breakpoint
CREATE TRIGGER runs_no_truncate BEFORE TRUNCATE ON runs
  FOR EACH STATEMENT EXECUTE FUNCTION runifold_history_no_truncate();
--> statement-breakpoint
CREATE TRIGGER run_steps_no_truncate BEFORE TRUNCATE ON run_steps
  FOR EACH STATEMENT EXECUTE FUNCTION runifold_history_no_truncate();
--> statement-breakpoint
-- A live run is never deleted (its children have no foreign keys and would be orphaned); the
-- cleaner deletes terminal runs only.
CREATE OR REPLACE FUNCTION runifold_live_runs_undeletable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status NOT IN ('completed', 'failed', 'cancelled') THEN
    RAISE EXCEPTION 'run % is % and cannot be deleted', OLD.id, OLD.status USING ERRCODE = 'check_violation';
  END IF;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER runs_live_undeletable BEFORE DELETE ON runs
  FOR EACH ROW EXECUTE FUNCTION runifold_live_runs_undeletable();
--> statement-breakpoint
-- A terminal run never keeps a claim time (claimRuns would otherwise trip the terminal trigger on
-- every claim for its key).
ALTER TABLE runs ADD CONSTRAINT runs_terminal_unclaimable
  CHECK (status NOT IN ('completed', 'failed', 'cancelled') OR claimable_at IS NULL);
