CREATE TABLE "mcp_sessions" (
	"id_sha256" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"key_id" text NOT NULL,
	"protocol_version" text NOT NULL,
	"client_capabilities" jsonb NOT NULL,
	"client_info" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_sessions_expires_idx" ON "mcp_sessions" USING btree ("expires_at");