-- Operator API tokens (issue 34, docs/security.md "Operator API tokens"): the credentials of the admin
-- HTTP API (/api/v1/admin/*) and of the approvals API for a person at a laptop, `rfo_<id>_<secret>`.
-- A token belongs to one operator and acts with that operator's rights (role, tenant memberships) as
-- they are at each request, narrowed by its scopes; a disabled operator's tokens stop working. Only
-- the SHA-256 of the 256-bit secret is stored (as for API keys: the secret is random, so a plain hash
-- suffices); the console shows the secret once.
CREATE TABLE "operator_api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"operator_id" uuid NOT NULL,
	"name" text NOT NULL,
	"secret_sha256" text NOT NULL,
	"scopes" text[] NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "operator_api_tokens" ADD CONSTRAINT "operator_api_tokens_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- serves: an operator's tokens on their settings page, newest first, and the cascade
CREATE INDEX "operator_api_tokens_operator_idx" ON "operator_api_tokens" USING btree ("operator_id","created_at");--> statement-breakpoint
-- A credential of people, like console sessions and OAuth tokens: workers never read it (0036).
CREATE OR REPLACE FUNCTION runifold_grant_worker(r text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT runifold_grant_runtime(r) THEN
    RETURN false;
  END IF;
  EXECUTE format('REVOKE ALL ON login_throttle, operator_sessions, operator_recovery_codes, oauth_clients,
    oauth_authorization_codes, oauth_tokens, server_secrets, operator_api_tokens FROM %I', r);
  RETURN true;
END $$;
--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION runifold_grant_worker(text) FROM PUBLIC;
--> statement-breakpoint
DO $$
DECLARE
  r text := runifold_worker_role();
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
    EXECUTE format('REVOKE ALL ON operator_api_tokens FROM %I', r);
  END IF;
END $$;
