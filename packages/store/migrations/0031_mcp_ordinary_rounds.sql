CREATE TABLE "mcp_ordinary_rounds" (
	"nonce" text PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"keys" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_ordinary_rounds" ADD CONSTRAINT "mcp_ordinary_rounds_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_ordinary_rounds_expires_idx" ON "mcp_ordinary_rounds" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "mcp_ordinary_rounds_run_idx" ON "mcp_ordinary_rounds" USING btree ("run_id");