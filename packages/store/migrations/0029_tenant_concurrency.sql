-- A tenant's own cap on its runs leased at once (review 3, §4 "One tenant flooding": once one
-- tenant's long steps filled every slot, another tenant's run waited for one to end). NULL: the
-- workers' default, a share of the fleet's slots (packages/sdk/src/ops/claim-runs.ts). A positive
-- cap only: 0 would be a disabled tenant, which disabled_at already says.
ALTER TABLE "tenants" ADD COLUMN "max_concurrent_runs" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_max_concurrent_runs_positive" CHECK ("max_concurrent_runs" > 0);
