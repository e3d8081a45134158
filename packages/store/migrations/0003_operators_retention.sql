CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "operator_tenants" (
	"operator_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	CONSTRAINT "operator_tenants_operator_id_tenant_id_pk" PRIMARY KEY("operator_id","tenant_id")
);
--> statement-breakpoint
CREATE TABLE "operators" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "operators_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "retention_fence" (
	"id" integer PRIMARY KEY NOT NULL,
	"epoch" bigint NOT NULL,
	"holder" text,
	"acquired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "retention_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"epoch" bigint NOT NULL,
	"holder" text NOT NULL,
	"dry_run" boolean DEFAULT false NOT NULL,
	"status" text NOT NULL,
	"purged" integer DEFAULT 0 NOT NULL,
	"batches" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"duration_ms" integer
);
--> statement-breakpoint
CREATE TABLE "tombstones" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"route_id" uuid,
	"workflow_key" text NOT NULL,
	"final_status" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"purged_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"result_digest" text,
	"purge_epoch" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "operator_tenants" ADD CONSTRAINT "operator_tenants_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operator_tenants" ADD CONSTRAINT "operator_tenants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tombstones_tenant_purged_idx" ON "tombstones" USING btree ("tenant_id","purged_at" DESC NULLS LAST);