-- Claims read due work only (review 3, E2). runs_tenant_key_claim_idx held every run with a
-- claimable_at — timers set for tomorrow, waits with a timeout, held leases — so the claim's walk of
-- tenants visited every tenant with any live run: 494 ms a claim at 10,000 tenants with one sleeping
-- run each. Its entries are split in two: what is due (queued runs, and leases the sweep found
-- expired), walked per tenant; and timers, read per version from their due end only.
-- New indexes first: claims never run without one.
CREATE INDEX "runs_ready_idx" ON "runs" USING btree ("tenant_id","workflow_key","claimable_at") WHERE claimable_at IS NOT NULL AND status IN ('queued', 'leased');--> statement-breakpoint
CREATE INDEX "runs_timer_idx" ON "runs" USING btree ("workflow_key","claimable_at") WHERE claimable_at IS NOT NULL AND status IN ('sleeping', 'waiting_signal', 'waiting_input');--> statement-breakpoint
-- Lease renewals and progress become HOT updates (review 3, E11: 1.3 KB of WAL a renewal with an
-- empty input, 4.6 KB with a 200-field one, every index of runs including the GIN over the input
-- receiving an entry): the lease expiry leaves every index, and a held lease has no claimable_at.
-- Leases held now leave the claim index; if their worker is gone, the sweep marks them expired
-- (packages/sdk/src/ops/promote-due-runs.ts).
DROP INDEX "runs_tenant_leased_idx";--> statement-breakpoint
CREATE INDEX "runs_tenant_leased_idx" ON "runs" USING btree ("tenant_id","lease_owner") WHERE status = 'leased';--> statement-breakpoint
UPDATE "runs" SET "claimable_at" = NULL WHERE "status" = 'leased' AND "lease_expires_at" > now();--> statement-breakpoint
DROP INDEX "runs_claim_idx";--> statement-breakpoint
DROP INDEX "runs_tenant_key_claim_idx";
