-- Review 3, F4: a worker gets only what a worker needs. Workers get a group role of their own,
-- runifold_wk_<database> (runifold_worker_role()), with the rows of runifold_rt_<database> (0035)
-- minus the tables of people's sign-in and of OAuth, which no worker reads or writes: sign-in
-- throttling, console sessions, recovery codes, OAuth clients, codes and tokens, and the server's
-- secrets. Tables of later migrations reach it through the default privileges, as for the web's role;
-- a migration that adds a sign-in table revokes it here too. `runifold db create-runtime-role` and the
-- migrate job put runifold_worker_<database> in this role.
CREATE OR REPLACE FUNCTION runifold_worker_role() RETURNS text
LANGUAGE sql STABLE AS $$ SELECT runifold_role_name('wk') $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION runifold_grant_worker(r text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT runifold_grant_runtime(r) THEN
    RETURN false;
  END IF;
  EXECUTE format('REVOKE ALL ON login_throttle, operator_sessions, operator_recovery_codes, oauth_clients,
    oauth_authorization_codes, oauth_tokens, server_secrets FROM %I', r);
  RETURN true;
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION runifold_grant_worker(text) FROM PUBLIC;
--> statement-breakpoint
DO $$
DECLARE
  r text := runifold_worker_role();
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r)
     AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolsuper OR rolcreaterole)) THEN
    BEGIN
      EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS', r);
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL; -- a concurrent migrator of a same-named database created it a moment ago
    END;
  END IF;
  PERFORM runifold_grant_worker(r);
END $$;
