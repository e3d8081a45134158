-- Continue-as-new (issue 32, docs/authoring.md "Continue-as-new"): ctx.continueAsNew(input) starts a fresh
-- history for the same run (same task ID) in one leased transaction (packages/sdk/src/ops/continue-as-new.ts).
-- The generation counts those transitions: 0 for a run that never continued. Nothing else is stored: the
-- old generation's history is removed and its children and approvals keep their rows under keys suffixed
-- with "@g<generation>", so the new generation may use the same keys.
ALTER TABLE "runs" ADD COLUMN "generation" integer DEFAULT 0 NOT NULL;
