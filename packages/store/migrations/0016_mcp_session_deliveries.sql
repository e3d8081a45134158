CREATE TABLE "mcp_input_deliveries" (
	"run_id" uuid NOT NULL,
	"input_key" text NOT NULL,
	"session_id_sha256" text NOT NULL,
	"stream_id" text NOT NULL,
	"lease_until" timestamp (3) with time zone NOT NULL,
	"delivered_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_input_deliveries_run_id_input_key_pk" PRIMARY KEY("run_id","input_key")
);
--> statement-breakpoint
CREATE TABLE "mcp_session_tasks" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"session_id_sha256" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD COLUMN "standalone_stream_id" text;--> statement-breakpoint
ALTER TABLE "mcp_input_deliveries" ADD CONSTRAINT "mcp_input_deliveries_session_id_sha256_mcp_sessions_id_sha256_fk" FOREIGN KEY ("session_id_sha256") REFERENCES "public"."mcp_sessions"("id_sha256") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_session_tasks" ADD CONSTRAINT "mcp_session_tasks_session_id_sha256_mcp_sessions_id_sha256_fk" FOREIGN KEY ("session_id_sha256") REFERENCES "public"."mcp_sessions"("id_sha256") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_input_deliveries_stream_idx" ON "mcp_input_deliveries" USING btree ("stream_id");--> statement-breakpoint
CREATE INDEX "mcp_input_deliveries_session_idx" ON "mcp_input_deliveries" USING btree ("session_id_sha256");--> statement-breakpoint
CREATE INDEX "mcp_session_tasks_session_idx" ON "mcp_session_tasks" USING btree ("session_id_sha256");