import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireOperator } from "../../lib/auth";
import { decideApprovalAction } from "../../lib/ui/actions/approval-actions";
import { presentApprovalsPage } from "../../lib/ui/presenters/approvals";
import { type ApprovalFixture, startApprovalFixture } from "../approvals/approval-fixture";
import { waitFor } from "../helpers/wait-for";
import { contextFor } from "./helpers";

/** The console's Approvals page: what you may decide, what others must, and deciding as yourself (channel console). */
let fx: ApprovalFixture;
beforeAll(async () => {
  fx = await startApprovalFixture();
});
afterAll(async () => {
  await fx?.close();
});

const operator = (id: string) => requireOperator(contextFor(fx.sql, id));

describe("approvals in the console", { timeout: 60_000 }, () => {
  it("lists the call in full for its approvers, apart for others, and records decisions as the signed-in person", async () => {
    const taskId = await fx.start({ approvers: { groups: ["finance"] }, quorum: 2 }, 4200);
    await waitFor(
      () => fx.sql`SELECT 1 FROM runs WHERE id = ${taskId} AND status = 'waiting_signal'`,
      (rows) => rows.length === 1,
      { describe: "the run to wait for its approval" },
    );
    const forB = await presentApprovalsPage(fx.sql, await operator(fx.b.id));
    expect(forB.mine).toMatchObject([
      { taskId, key: "pay", tenantSlug: "acme", message: "Pay 4200 EUR?", details: { amount: 4200 }, approvers: "group finance" },
    ]);
    expect(forB.mine[0]?.arguments).toMatchObject({ amount: 4200 });
    expect(forB.emailOn).toBe(false); // the page says email is off
    const forD = await presentApprovalsPage(fx.sql, await operator(fx.d.id));
    expect(forD.mine).toEqual([]);
    expect(forD.others.map((item) => item.taskId)).toEqual([taskId]);
    expect((await presentApprovalsPage(fx.sql, await operator(fx.outsider.id))).others).toEqual([]);

    const decide = (id: string, decision: string) =>
      decideApprovalAction(contextFor(fx.sql, id), { taskId, key: "pay", decision, comment: "seen the invoice" });
    await expect(decide(fx.outsider.id, "approve")).rejects.toMatchObject({ code: "not_found" });
    await expect(decide(fx.d.id, "approve")).rejects.toMatchObject({ code: "forbidden" });
    await expect(decide(fx.a.id, "approve")).rejects.toMatchObject({ code: "forbidden" }); // the requester
    expect(await decide(fx.b.id, "approve")).toEqual({ outcome: null, decisions: 1 });
    await expect(decide(fx.b.id, "approve")).rejects.toMatchObject({ code: "conflict" });
    expect(await decide(fx.c.id, "approve")).toEqual({ outcome: "approved", decisions: 2 });
    const rows = await fx.sql`SELECT email, channel, comment FROM approval_decisions WHERE run_id = ${taskId} ORDER BY id`;
    expect(rows).toEqual([
      { email: "b@acme.test", channel: "console", comment: "seen the invoice" },
      { email: "c@acme.test", channel: "console", comment: "seen the invoice" },
    ]);
    const refused =
      await fx.sql`SELECT operator_id FROM audit_events WHERE action = 'approval.refused' AND fields->>'taskId' = ${taskId}`;
    expect(refused.map((row) => row.operator_id)).toEqual([fx.d.id, fx.a.id, fx.b.id]); // B's second try too
  });

  it("refuses a decision posted from another origin before reading anything", async () => {
    const taskId = await fx.start({ approvers: { groups: ["finance"] } });
    await expect(
      decideApprovalAction(contextFor(fx.sql, fx.b.id, { origin: "https://evil.test", "sec-fetch-site": "cross-site" }), {
        taskId,
        key: "pay",
        decision: "approve",
      }),
    ).rejects.toBeTruthy();
    expect(await fx.sql`SELECT 1 FROM approval_decisions WHERE run_id = ${taskId}`).toHaveLength(0);
  });
});
