import { verifyReceipt } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireOperator } from "../../lib/auth";
import { handleApprovalReceipt } from "../../lib/ui/handlers/approval-receipt";
import { presentTaskApprovals } from "../../lib/ui/presenters/task-approvals";
import { type ApprovalFixture, startApprovalFixture } from "../approvals/approval-fixture";
import { waitFor } from "../helpers/wait-for";
import { contextFor } from "./helpers";

/** The task page's approvals: the history in words and the receipt as a download, for the task's tenant only. */
let fx: ApprovalFixture;
beforeAll(async () => {
  fx = await startApprovalFixture();
});
afterAll(async () => {
  await fx?.close();
});

describe("a task's approvals in the console", { timeout: 60_000 }, () => {
  it("shows every decision and the outcome, and serves the receipt to the tenant's operators only", async () => {
    const taskId = await fx.start({ approvers: { groups: ["finance"] }, quorum: 2 });
    await waitFor(
      () => fx.sql`SELECT 1 FROM runs WHERE id = ${taskId} AND status = 'waiting_signal'`,
      (rows) => rows.length === 1,
      { describe: "the run to wait for its approval" },
    );
    const asD = await requireOperator(contextFor(fx.sql, fx.d.id));
    expect(await presentTaskApprovals(fx.sql, asD, taskId)).toMatchObject([
      { key: "pay", status: "open", approvers: "group finance", quorum: 2, decisions: [], receipt: null },
    ]);
    expect((await handleApprovalReceipt(contextFor(fx.sql, fx.d.id), taskId, "pay")).status).toBe(404); // not settled yet
    await fx.decide(fx.b.token, taskId, "approve", "fine");
    await fx.decide(fx.c.token, taskId, "approve");
    await waitFor(
      () => fx.sql`SELECT 1 FROM runs WHERE id = ${taskId} AND status = 'completed'`,
      (rows) => rows.length === 1,
      { describe: "the run to complete" },
    );
    const [approval] = await presentTaskApprovals(fx.sql, asD, taskId);
    expect(approval).toMatchObject({
      status: "approved",
      outcome: "approved",
      decisions: [
        { email: "b@acme.test", decision: "approve", comment: "fine" },
        { email: "c@acme.test", decision: "approve", comment: null },
      ],
    });
    const download = await handleApprovalReceipt(contextFor(fx.sql, fx.d.id), taskId, "pay");
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="receipt-${taskId}-pay.jws"`);
    const jwks = await (await fetch(`${fx.origin}/.well-known/runifold/approvals-jwks.json`)).json();
    expect(await verifyReceipt(await download.text(), jwks)).toMatchObject({ valid: true, payload: { sub: taskId } });

    const outsider = await requireOperator(contextFor(fx.sql, fx.outsider.id));
    expect(await presentTaskApprovals(fx.sql, outsider, taskId)).toEqual([]);
    expect((await handleApprovalReceipt(contextFor(fx.sql, fx.outsider.id), taskId, "pay")).status).toBe(404);
    expect((await handleApprovalReceipt(contextFor(fx.sql, null), taskId, "pay")).status).toBe(401);
  });
});
