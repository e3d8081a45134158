CREATE TABLE "run_idempotency_keys" (
	"tenant_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"run_id" uuid NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_idempotency_keys_tenant_id_scope_key_pk" PRIMARY KEY("tenant_id","scope","key")
);
--> statement-breakpoint
CREATE TABLE "schedule_cursors" (
	"tenant_id" uuid NOT NULL,
	"tool_name" text NOT NULL,
	"last_fire_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "schedule_cursors_tenant_id_tool_name_pk" PRIMARY KEY("tenant_id","tool_name")
);
--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "schedule_cron" text;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "schedule_timezone" text;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "schedule_catch_up" text DEFAULT 'skip' NOT NULL;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "schedule_input" jsonb;--> statement-breakpoint
ALTER TABLE "run_inputs" ADD COLUMN "deadline_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "run_inputs" ADD COLUMN "on_timeout" jsonb;--> statement-breakpoint
ALTER TABLE "run_steps" ADD COLUMN "seq" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "lost_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "deadline_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "failure" jsonb;--> statement-breakpoint
CREATE INDEX "run_idempotency_keys_expires_idx" ON "run_idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "runs_deadline_idx" ON "runs" USING btree ("deadline_at") WHERE deadline_at IS NOT NULL AND finished_at IS NULL;