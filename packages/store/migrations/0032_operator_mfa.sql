-- Multi-factor authentication for password operators (issue 33, ASVS 2.8 and 3.7.1): a sealed TOTP
-- secret per operator and its one-time recovery codes (hashed); each console session records how it
-- was signed in, whether its second factor is still due, and when it last proved who it is (the
-- "recent authentication" that minting keys, creating admins, binding routes and consent require).
CREATE TABLE "operator_recovery_codes" (
	"operator_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "operator_recovery_codes_operator_id_code_hash_pk" PRIMARY KEY("operator_id","code_hash")
);
--> statement-breakpoint
ALTER TABLE "operator_sessions" ADD COLUMN "method" text DEFAULT 'password' NOT NULL;--> statement-breakpoint
ALTER TABLE "operator_sessions" ADD COLUMN "second_factor_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "operator_sessions" ADD COLUMN "authenticated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "operators" ADD COLUMN "mfa_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "operators" ADD COLUMN "mfa_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "operators" ADD COLUMN "mfa_last_step" bigint;--> statement-breakpoint
ALTER TABLE "operator_recovery_codes" ADD CONSTRAINT "operator_recovery_codes_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE cascade ON UPDATE no action;