ALTER TABLE "routes" ADD COLUMN "schedule_paused" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_input_path_idx" ON "runs" USING gin ("input" jsonb_path_ops);