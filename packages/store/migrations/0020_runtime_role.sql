-- Least privilege (security review M7). Migrations run as the owner of the schema's objects; the web
-- app and workers connect as login roles that are members of the NOLOGIN group role
-- runifold_runtime, which may read and write rows and nothing else: no CREATE on the schema, owner of
-- nothing (so no ALTER, DROP or TRUNCATE), no UPDATE of append-only history. docs/deploy.md,
-- "Database roles", says how to create the login roles.
--
-- No row-level security: on an RLS-enabled table PostgreSQL withholds column statistics from
-- non-leakproof operators for every role subject to it, and the console's input search
-- (`input @> …`, runs_input_path_idx) then loses its index plan (7 ms → 490 ms at 300k runs).
-- docs/security.md, V4, has the measurement and what protects tenants instead.
--
-- Roles are cluster-wide and many databases on one server run these migrations, so creating the role
-- is idempotent and optional: a migrator without CREATEROLE skips it with a NOTICE, and an operator
-- creates it by hand (docs/deploy.md) and then runs SELECT runifold_grant_runtime(); as the owner.
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
  -- stays; tombstones are never deleted, and their triggers refuse it anyway).
  EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON runifold_migrations FROM %I', r);
  EXECUTE format('REVOKE UPDATE ON audit_events, run_events FROM %I', r);
  EXECUTE format('REVOKE UPDATE, DELETE ON tombstones FROM %I', r);
  IF has_schema_privilege(r, s, 'CREATE') THEN
    RAISE WARNING '% may CREATE in schema % (PUBLIC can, as before PostgreSQL 15): run REVOKE CREATE ON SCHEMA % FROM PUBLIC', r, s, s;
  END IF;
  RETURN true;
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION runifold_grant_runtime() FROM PUBLIC;
--> statement-breakpoint
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'runifold_runtime')
     AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolsuper OR rolcreaterole)) THEN
    BEGIN
      CREATE ROLE runifold_runtime NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL; -- another database's migration created it a moment ago
    END;
  END IF;
  PERFORM runifold_grant_runtime();
END $$;
