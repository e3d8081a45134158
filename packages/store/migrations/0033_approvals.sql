-- Approvals (issue 30, DESIGN §8): a human decision with a policy, a person behind every answer and
-- a signed receipt. One row per run and key (ctx.requestApproval); its decisions, one per person;
-- the ES256 keys that sign receipts (sealed, rotatable: the newest signs); operators' groups.
CREATE TABLE "approvals" (
	"run_id" uuid NOT NULL,
	"key" text NOT NULL,
	"tenant_id" uuid NOT NULL,
	"message" text NOT NULL,
	"details" jsonb,
	"requested_schema" jsonb,
	"policy" jsonb NOT NULL,
	"args_digest" text NOT NULL,
	"details_digest" text NOT NULL,
	"policy_digest" text NOT NULL,
	"excluded_operator_ids" uuid[] DEFAULT '{}' NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"outcome" text,
	"opened_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"escalates_at" timestamp (3) with time zone,
	"escalated_at" timestamp (3) with time zone,
	"settled_at" timestamp (3) with time zone,
	"receipt" text,
	CONSTRAINT "approvals_run_id_key_pk" PRIMARY KEY("run_id","key"),
	CONSTRAINT "approvals_status_check" CHECK ("status" IN ('open', 'approved', 'rejected', 'expired')),
	CONSTRAINT "approvals_outcome_check" CHECK ("outcome" IN ('approved', 'rejected', 'expired'))
);
--> statement-breakpoint
CREATE TABLE "approval_decisions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "approval_decisions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" uuid NOT NULL,
	"key" text NOT NULL,
	"operator_id" uuid NOT NULL,
	"email" text NOT NULL,
	"channel" text NOT NULL,
	"decision" text NOT NULL,
	"comment" text,
	"fields" jsonb,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "approval_decisions_decision_check" CHECK ("decision" IN ('approve', 'reject'))
);
--> statement-breakpoint
CREATE TABLE "approval_signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_sealed" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "operators" ADD COLUMN "groups" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
-- A purged run takes its approvals and their decisions with it (the receipt went out with the result).
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_decisions" ADD CONSTRAINT "approval_decisions_approval_fk" FOREIGN KEY ("run_id","key") REFERENCES "public"."approvals"("run_id","key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- serves: no person counts twice (decideApproval's insert), the decisions of one approval in order, and the foreign key's cascade
CREATE UNIQUE INDEX "approval_decisions_person_uq" ON "approval_decisions" USING btree ("run_id","key","operator_id");--> statement-breakpoint
-- serves: GET /api/v1/approvals and `runifold approvals list` (a tenant's open approvals, oldest first)
CREATE INDEX "approvals_open_tenant_idx" ON "approvals" USING btree ("tenant_id","opened_at") WHERE "status" = 'open';--> statement-breakpoint
-- serves: the signing key (newest first) and the JWKS
CREATE INDEX "approval_signing_keys_created_idx" ON "approval_signing_keys" USING btree ("created_at");
