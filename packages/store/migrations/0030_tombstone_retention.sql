-- Tombstones get a retention of their own (review 3, E10: one row per purged run, kept forever —
-- about 500 M rows a year at the benchmark's rate). They stay immutable: no UPDATE or TRUNCATE by
-- anyone, and a DELETE only of a tombstone at least 30 days old, only inside runifold_purge_tombstones
-- (which sets the flag the trigger checks, for its own transaction only). The app's runtime role
-- still has no DELETE on the table; it may call the function, which takes its retention from the web's
-- RUNIFOLD_TOMBSTONE_RETENTION_DAYS but never goes below the floor.
CREATE INDEX "tombstones_purged_idx" ON "tombstones" USING btree ("purged_at");--> statement-breakpoint
CREATE OR REPLACE FUNCTION runifold_tombstones_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('runifold.purge', true) = 'tombstones'
     AND OLD.purged_at < now() - interval '30 days' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'tombstones are immutable' USING ERRCODE = 'check_violation';
END $$;
--> statement-breakpoint
-- Deletes up to `max_rows` tombstones purged more than `keep` ago (never less than 30 days), oldest
-- first (tombstones_purged_idx); returns how many went. SECURITY DEFINER: it acts as the owner, who
-- holds DELETE; the trigger above is the second guard.
CREATE OR REPLACE FUNCTION runifold_purge_tombstones(keep interval, max_rows integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  purged integer;
BEGIN
  PERFORM set_config('runifold.purge', 'tombstones', true);
  DELETE FROM tombstones WHERE run_id IN (
    SELECT run_id FROM tombstones WHERE purged_at < now() - greatest(keep, interval '30 days')
    ORDER BY purged_at LIMIT max_rows);
  GET DIAGNOSTICS purged = ROW_COUNT;
  PERFORM set_config('runifold.purge', '', true);
  RETURN purged;
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION runifold_purge_tombstones(interval, integer) FROM PUBLIC;--> statement-breakpoint
-- The runtime role's grants (migration 0020), plus the function: an operator who creates the role
-- later and runs SELECT runifold_grant_runtime(); gets it too.
CREATE OR REPLACE FUNCTION runifold_grant_runtime() RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  s text := current_schema();
  r text := 'runifold_runtime';
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'runifold_runtime') THEN
    RAISE NOTICE 'role runifold_runtime does not exist and % may not create it: create it as docs/deploy.md ("Database roles") says, then run SELECT runifold_grant_runtime(); as %', current_user, current_user;
    RETURN false;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'runifold_runtime'
             AND (rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb)) THEN
    RAISE WARNING 'runifold_runtime has SUPERUSER, BYPASSRLS, CREATEROLE or CREATEDB; it should have none';
  END IF;
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, r);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO %I', s, r);
  EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', s, r);
  -- Tables of later migrations, created by this same owner, get the same rights.
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %I', s, r);
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT ON SEQUENCES TO %I', s, r);
  -- Append-only for the app: the migration ledger is read only; history and the audit trail are
  -- never updated (retention deletes old audit_events and the run_events of purged runs, so DELETE
  -- stays; tombstones are deleted only by runifold_purge_tombstones, and their triggers refuse it otherwise).
  EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON runifold_migrations FROM %I', r);
  EXECUTE format('REVOKE UPDATE ON audit_events, run_events FROM %I', r);
  EXECUTE format('REVOKE UPDATE, DELETE ON tombstones FROM %I', r);
  -- Tombstones past their retention go only through this function (migration 0030).
  EXECUTE format('GRANT EXECUTE ON FUNCTION runifold_purge_tombstones(interval, integer) TO %I', r);
  IF has_schema_privilege(r, s, 'CREATE') THEN
    RAISE WARNING '% may CREATE in schema % (PUBLIC can, as before PostgreSQL 15): run REVOKE CREATE ON SCHEMA % FROM PUBLIC', r, s, s;
  END IF;
  RETURN true;
END $$;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'runifold_runtime') THEN
    GRANT EXECUTE ON FUNCTION runifold_purge_tombstones(interval, integer) TO runifold_runtime;
  END IF;
END $$;
