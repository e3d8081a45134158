-- Review 3, F3: one runtime role per database, not one per server. Migration 0020's role
-- runifold_runtime is cluster-wide, so a login of one deployment reached every Runifold database on
-- the same server (CONNECT is PUBLIC's by default). From here on each database has its own NOLOGIN
-- group role, named from the database (runifold_runtime_role(): runifold_rt_<database>), which
-- alone may CONNECT (besides the owner and superusers) and read and write rows, nothing else.
-- The login roles of the web and the workers are members of it (`runifold db create-runtime-role`,
-- the migrate job's RUNIFOLD_WEB_DB_PASSWORD / RUNIFOLD_WORKER_DB_PASSWORD; docs/deploy.md,
-- "Database roles").
--
-- Existing deployments keep working: on a database migrated before this migration, the old
-- runifold_runtime keeps its grants and gets CONNECT explicitly, until the operator has moved the
-- logins and runs SELECT runifold_revoke_legacy_runtime(); as the owner. On a database migrated from
-- scratch (every ledger row written in this same transaction) the old role gets nothing.
--
-- The name, at most 63 bytes (longer names are truncated by PostgreSQL and could collide): a long
-- database name is replaced by the first 16 hex digits of its md5.
CREATE OR REPLACE FUNCTION runifold_role_name(kind text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN octet_length('runifold_' || kind || '_' || current_database()) <= 63
              THEN 'runifold_' || kind || '_' || current_database()
              ELSE 'runifold_' || kind || '_' || left(md5(current_database()), 16) END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION runifold_runtime_role() RETURNS text
LANGUAGE sql STABLE AS $$ SELECT runifold_role_name('rt') $$;
--> statement-breakpoint
-- The grants of 0020/0030 to the role `r`, plus CONNECT on this database (and only this one).
CREATE OR REPLACE FUNCTION runifold_grant_runtime(r text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  s text := current_schema();
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
    RAISE NOTICE 'role % does not exist and % may not create it: create it as docs/deploy.md ("Database roles") says, then run SELECT runifold_grant_runtime(runifold_runtime_role()); as %', r, current_user, current_user;
    RETURN false;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r
             AND (rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb)) THEN
    RAISE WARNING '% has SUPERUSER, BYPASSRLS, CREATEROLE or CREATEDB; it should have none', r;
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), r);
  -- Only the runtime role (besides the owner and superusers) may connect. A database cloned from a
  -- migrated template starts with PUBLIC's CONNECT again, so this runs with every grant.
  BEGIN
    EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM PUBLIC', current_database());
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING '% may not revoke CONNECT on database % from PUBLIC: run REVOKE CONNECT ON DATABASE % FROM PUBLIC; as its owner', current_user, current_database(), current_database();
  END;
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, r);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO %I', s, r);
  EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', s, r);
  -- Tables of later migrations, created by this same owner, get the same rights.
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO %I', s, r);
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT ON SEQUENCES TO %I', s, r);
  -- Append-only for the app, as in 0020 and 0030.
  EXECUTE format('REVOKE INSERT, UPDATE, DELETE ON runifold_migrations FROM %I', r);
  EXECUTE format('REVOKE UPDATE ON audit_events, run_events FROM %I', r);
  EXECUTE format('REVOKE UPDATE, DELETE ON tombstones FROM %I', r);
  EXECUTE format('GRANT EXECUTE ON FUNCTION runifold_purge_tombstones(interval, integer) TO %I', r);
  IF has_schema_privilege(r, s, 'CREATE') THEN
    RAISE WARNING '% may CREATE in schema % (PUBLIC can, as before PostgreSQL 15): run REVOKE CREATE ON SCHEMA % FROM PUBLIC', r, s, s;
  END IF;
  RETURN true;
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION runifold_grant_runtime(text) FROM PUBLIC;
--> statement-breakpoint
-- The old call (docs of 0020) still grants the old cluster-wide role, now with CONNECT.
CREATE OR REPLACE FUNCTION runifold_grant_runtime() RETURNS boolean
LANGUAGE sql AS $$ SELECT runifold_grant_runtime('runifold_runtime') $$;
--> statement-breakpoint
-- Takes from the old cluster-wide role everything it had in this database: run it (as the owner)
-- once the web and workers connect as members of runifold_runtime_role().
CREATE OR REPLACE FUNCTION runifold_revoke_legacy_runtime() RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  s text := current_schema();
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'runifold_runtime') THEN
    RETURN false;
  END IF;
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM runifold_runtime', current_database());
  EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM runifold_runtime', s);
  EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM runifold_runtime', s);
  EXECUTE format('REVOKE ALL ON ALL FUNCTIONS IN SCHEMA %I FROM runifold_runtime', s);
  EXECUTE format('REVOKE ALL ON SCHEMA %I FROM runifold_runtime', s);
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE ALL ON TABLES FROM runifold_runtime', s);
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE ALL ON SEQUENCES FROM runifold_runtime', s);
  RETURN true;
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION runifold_revoke_legacy_runtime() FROM PUBLIC;
--> statement-breakpoint
DO $$
DECLARE
  r text := runifold_runtime_role();
  -- Rows of earlier migrate runs carry an earlier applied_at; this run's all carry now().
  upgraded boolean := EXISTS (SELECT 1 FROM runifold_migrations WHERE applied_at < now());
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r)
     AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolsuper OR rolcreaterole)) THEN
    BEGIN
      EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS', r);
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL; -- a concurrent migrator of a same-named database created it a moment ago
    END;
  END IF;
  PERFORM runifold_grant_runtime(r);
  IF NOT upgraded THEN
    PERFORM runifold_revoke_legacy_runtime();
  ELSIF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'runifold_runtime') THEN
    IF has_table_privilege('runifold_runtime', 'runs', 'SELECT') THEN
      PERFORM runifold_grant_runtime('runifold_runtime');
    END IF;
  END IF;
END $$;
