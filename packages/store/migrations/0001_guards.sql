-- Terminal runs never change: any UPDATE of a completed/failed/cancelled run is refused at the
-- database, whatever code (or hand-written SQL) attempts it.
CREATE OR REPLACE FUNCTION runifold_terminal_runs_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status IN ('completed', 'failed', 'cancelled') THEN
    RAISE EXCEPTION 'run % is terminal (%) and cannot change', OLD.id, OLD.status
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER runs_terminal_immutable BEFORE UPDATE ON runs
  FOR EACH ROW EXECUTE FUNCTION runifold_terminal_runs_immutable();
--> statement-breakpoint
ALTER TABLE runs ADD CONSTRAINT runs_status_check CHECK (status IN
  ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input', 'completed', 'failed', 'cancelled'));
--> statement-breakpoint
-- History is append-only. Only the fenced retention cleaner may delete, and it says so by setting
-- runifold.purge = 'on' inside its own transaction.
CREATE OR REPLACE FUNCTION runifold_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('runifold.purge', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'run_events is append-only' USING ERRCODE = 'check_violation';
END $$;
--> statement-breakpoint
CREATE TRIGGER run_events_append_only BEFORE UPDATE OR DELETE ON run_events
  FOR EACH ROW EXECUTE FUNCTION runifold_events_append_only();
