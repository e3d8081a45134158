CREATE TABLE "mcp_ordinary_calls" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"key_id" text NOT NULL,
	"session_id_sha256" text,
	"request_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_progress_marks" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"progress" double precision NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_ordinary_calls" ADD CONSTRAINT "mcp_ordinary_calls_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_ordinary_calls" ADD CONSTRAINT "mcp_ordinary_calls_session_id_sha256_mcp_sessions_id_sha256_fk" FOREIGN KEY ("session_id_sha256") REFERENCES "public"."mcp_sessions"("id_sha256") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_ordinary_calls_request_idx" ON "mcp_ordinary_calls" USING btree ("tenant_id","key_id","request_id");--> statement-breakpoint
CREATE INDEX "mcp_ordinary_calls_expires_idx" ON "mcp_ordinary_calls" USING btree ("expires_at");