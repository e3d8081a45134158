-- Approval reminders (issue 30, policy.remind.every): the next reminder by the store's clock. Set when
-- the approval opens; the worker that takes a due reminder moves it one period past now in the same
-- transaction as its audit row, so one period gives at most one reminder (ops/await-approval.ts), and
-- the parked run is claimable at it like at the escalation and the expiry.
ALTER TABLE "approvals" ADD COLUMN "next_remind_at" timestamp (3) with time zone;
