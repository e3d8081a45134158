-- Approval metrics (issue 30): every settlement counted, in its own transaction, per tenant, way
-- (decisions or expiry) and outcome — a count, the seconds from opening to settling summed, and
-- cumulative counts per bucket bound (packages/sdk/src/approvals/settle-stats.ts). Read at scrape
-- time by GET /api/metrics (runifold_approval_decide_seconds, runifold_approvals_expired_total), so
-- every web instance reports the same totals; they only grow (retention purging runs leaves them).
CREATE TABLE "approval_settle_stats" (
	"tenant_id" uuid NOT NULL,
	"settled_by" text NOT NULL,
	"outcome" text NOT NULL,
	"settled" bigint DEFAULT 0 NOT NULL,
	"seconds_sum" double precision DEFAULT 0 NOT NULL,
	"buckets" bigint[] NOT NULL,
	CONSTRAINT "approval_settle_stats_pk" PRIMARY KEY("tenant_id","settled_by","outcome"),
	CONSTRAINT "approval_settle_stats_settled_by_check" CHECK ("settled_by" IN ('decisions', 'expiry')),
	CONSTRAINT "approval_settle_stats_outcome_check" CHECK ("outcome" IN ('approved', 'rejected', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "approval_settle_stats" ADD CONSTRAINT "approval_settle_stats_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
