CREATE TABLE "workflow_definition_revisions" (
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"revision" integer NOT NULL,
	"fingerprint" text NOT NULL,
	"definition" jsonb NOT NULL,
	"published_by" text NOT NULL,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_definition_revisions_name_version_revision_pk" PRIMARY KEY("name","version","revision")
);
--> statement-breakpoint
CREATE TABLE "workflow_definitions" (
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"title" text,
	"description" text DEFAULT '' NOT NULL,
	"input_schema" jsonb NOT NULL,
	"output_schema" jsonb,
	"preflight" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"fingerprint" text NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_by" text NOT NULL,
	CONSTRAINT "workflow_definitions_name_version_pk" PRIMARY KEY("name","version")
);
--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "definition_revision" integer;--> statement-breakpoint
ALTER TABLE "routes" ADD COLUMN "preflight" jsonb;