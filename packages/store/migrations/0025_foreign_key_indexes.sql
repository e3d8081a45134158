-- Every foreign key gets an index led by its columns (tests/engine/foreign-key-indexes.test.ts holds
-- the schema to that). Deleting a row cascades to the rows that name it, and without an index each
-- cascade was a sequential scan of the referencing table per deleted row: every MCP session insert
-- purges expired sessions (mcp_ordinary_calls), retention purges up to a thousand abandoned OAuth
-- registrations a pass and asks whether a grant or a pending code names each, and deleting a tenant
-- or an operator reaches sessions, memberships and authorization codes.
CREATE INDEX "mcp_ordinary_calls_session_idx" ON "mcp_ordinary_calls" USING btree ("session_id_sha256");--> statement-breakpoint
CREATE INDEX "mcp_sessions_tenant_idx" ON "mcp_sessions" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "oauth_authorization_codes_client_idx" ON "oauth_authorization_codes" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "oauth_authorization_codes_grant_idx" ON "oauth_authorization_codes" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oauth_authorization_codes_operator_idx" ON "oauth_authorization_codes" USING btree ("operator_id");--> statement-breakpoint
CREATE INDEX "oauth_authorization_codes_tenant_idx" ON "oauth_authorization_codes" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "oauth_grants_client_idx" ON "oauth_grants" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "operator_tenants_tenant_idx" ON "operator_tenants" USING btree ("tenant_id");