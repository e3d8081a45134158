import { cancelRunForTenant, canonicalDigest, normalizePolicy, verifyReceipt } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhook } from "../../lib/admin";
import { readMetricsSnapshot } from "../../lib/tasks";
import { waitFor } from "../helpers/wait-for";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";

let fx: ApprovalFixture;
beforeAll(async () => {
  fx = await startApprovalFixture();
});
afterAll(async () => {
  await fx?.close();
});

const finance2of3 = { approvers: { groups: ["finance"] }, quorum: 2, separationOfDuties: true, expiresIn: "1h" };

async function parked(taskId: string) {
  return waitFor(
    () => fx.sql`SELECT status, wait_detail FROM runs WHERE id = ${taskId}`,
    (rows) => rows[0]?.status === "waiting_signal" && rows[0]?.wait_detail?.approval?.key === "pay",
    { describe: `run ${taskId} to wait for its approval`, timeoutMs: 20_000 },
  );
}

async function finished(taskId: string) {
  const [row] = await waitFor(
    () => fx.sql<{ status: string; result: Record<string, unknown> | null }[]>`
      SELECT r.status, (SELECT e.payload->'result' FROM run_events e WHERE e.run_id = r.id AND e.type = 'completed') AS result
      FROM runs r WHERE r.id = ${taskId}`,
    (rows) => rows[0]?.status === "completed" || rows[0]?.status === "failed",
    { describe: `run ${taskId} to finish`, timeoutMs: 20_000 },
  );
  return row as { status: string; result: Record<string, unknown> | null };
}

const decisionCount = async (taskId: string) =>
  Number((await fx.sql`SELECT count(*) AS n FROM approval_decisions WHERE run_id = ${taskId}`)[0]?.n);
const audits = (taskId: string, action: string) =>
  fx.sql<{ operator_id: string | null; fields: Record<string, unknown> }[]>`
    SELECT operator_id, fields FROM audit_events WHERE action = ${action} AND fields->>'taskId' = ${taskId} ORDER BY id`;

describe("approvals over HTTP, decided by people, with a signed receipt", { timeout: 60_000 }, () => {
  it("2 of 3 from finance: the requester is refused, two others approve, the run continues with both, the receipt verifies", async () => {
    const taskId = await fx.start(finance2of3);
    await parked(taskId);

    const metrics = await readMetricsSnapshot(fx.sql);
    expect(metrics.openApprovals.find((row) => row.tenant === "acme")?.approvals).toBeGreaterThanOrEqual(1);

    const asRequester = await fx.decide(fx.a.token, taskId, "approve");
    expect(asRequester.status).toBe(403);
    expect(await asRequester.json()).toMatchObject({ error: "separation_of_duties" });
    expect(await decisionCount(taskId)).toBe(0);
    expect((await audits(taskId, "approval.refused"))[0]).toMatchObject({
      operator_id: fx.a.id,
      fields: { reason: "separation_of_duties" },
    });

    const listed = await fetch(`${fx.origin}/api/v1/approvals`, { headers: { authorization: `Bearer ${fx.b.token}` } });
    expect(listed.status).toBe(200);
    const { approvals } = (await listed.json()) as { approvals: { taskId: string; canDecide: boolean; quorum: number }[] };
    expect(approvals.find((item) => item.taskId === taskId)).toMatchObject({ canDecide: true, quorum: 2 });
    const asA = (await (
      await fetch(`${fx.origin}/api/v1/approvals`, { headers: { authorization: `Bearer ${fx.a.token}` } })
    ).json()) as {
      approvals: { taskId: string }[];
    };
    expect(asA.approvals.some((item) => item.taskId === taskId)).toBe(false);

    const first = await fx.decide(fx.b.token, taskId, "approve", "budget ok");
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ outcome: null });
    expect((await fx.sql`SELECT wait_detail FROM runs WHERE id = ${taskId}`)[0]?.wait_detail.approval).toMatchObject({
      approvers: "group finance",
      quorum: 2,
      approved: 1,
    });
    expect((await fx.decide(fx.b.token, taskId, "approve")).status).toBe(409); // no person counts twice
    const second = await fx.decide(fx.c.token, taskId, "approve");
    expect(second.status).toBe(201);
    expect(await second.json()).toMatchObject({ outcome: "approved" });

    const done = await finished(taskId);
    expect(done.status).toBe("completed");
    const structured = done.result?.structuredContent as {
      outcome: string;
      decisions: { email: string; comment: string | null }[];
    };
    expect(structured.outcome).toBe("approved");
    expect(structured.decisions.map((d) => d.email)).toEqual(["b@acme.test", "c@acme.test"]);
    expect(structured.decisions[0]).toMatchObject({ channel: "http", decision: "approve", comment: "budget ok" });

    const receipts = (done.result?._meta as Record<string, string[]> | undefined)?.["io.runifold/approvals"] ?? [];
    expect(receipts).toHaveLength(1);
    const receipt = receipts[0] as string;
    const jwks = await (await fetch(`${fx.origin}/.well-known/runifold/approvals-jwks.json`)).json();
    const verified = await verifyReceipt(receipt, jwks);
    expect(verified).toMatchObject({
      valid: true,
      payload: { sub: taskId, tenant: "acme", workflow: "approval-flow", version: 1, key: "pay", outcome: "approved" },
    });
    if (verified.valid) {
      expect(verified.payload.decisions.map((d) => d.operatorId)).toEqual([fx.b.id, fx.c.id]);
      // Bound to the exact call: anyone recomputes the digests from the arguments, details and policy (RFC 8785).
      expect(verified.payload.argsDigest).toBe(canonicalDigest({ policy: finance2of3, amount: 1200 }));
      expect(verified.payload.detailsDigest).toBe(canonicalDigest({ amount: 1200 }));
      expect(verified.payload.policyDigest).toBe(canonicalDigest(normalizePolicy(finance2of3)));
      expect(verified.payload.argsDigest).not.toBe(canonicalDigest({ policy: finance2of3, amount: 1201 }));
    }
    // One byte of the signed part changed: the signature no longer holds.
    const dot = receipt.indexOf(".") + 5;
    const tampered = receipt.slice(0, dot) + (receipt[dot] === "A" ? "B" : "A") + receipt.slice(dot + 1);
    expect((await verifyReceipt(tampered, jwks)).valid).toBe(false);
    expect((await audits(taskId, "approval.decided")).map((row) => row.operator_id)).toEqual([fx.b.id, fx.c.id]);
    expect(await audits(taskId, "approval.requested")).toHaveLength(1);
    expect((await fx.decide(fx.d.token, taskId, "approve")).status).toBe(409);
  });

  it("one rejection with rejectQuorum 1 rejects; subscribed webhooks get requested and decided", async () => {
    await createWebhook(
      { sql: fx.sql, actor: { kind: "cli", user: "test", host: "localhost" } },
      { tenantId: fx.tenantId, url: "http://127.0.0.1:9/hook", events: ["task.approval_requested", "task.approval_decided"] },
      { keyMaterial: process.env.NEXTAUTH_SECRET, allowPrivate: true },
    );
    const taskId = await fx.start({ approvers: { groups: ["finance"] }, quorum: 2, rejectQuorum: 1 });
    await parked(taskId);
    const rejected = await fx.decide(fx.c.token, taskId, "reject", "not this quarter");
    expect(await rejected.json()).toMatchObject({ outcome: "rejected" });
    const done = await finished(taskId);
    expect(done.result?.structuredContent).toMatchObject({
      outcome: "rejected",
      decisions: [{ email: "c@acme.test", decision: "reject" }],
    });
    const events = await fx.sql<{ event: string; task: Record<string, unknown> }[]>`
      SELECT event, task FROM webhook_deliveries WHERE task_id = ${taskId} ORDER BY created_at, event`;
    expect(events).toMatchObject([
      {
        event: "task.approval_requested",
        task: {
          status: "working",
          workflow: "approval-flow@1",
          approval: { key: "pay", message: "Pay 1200 EUR?", approvers: "group finance", quorum: 2 },
        },
      },
      {
        event: "task.approval_decided",
        task: {
          approval: {
            key: "pay",
            outcome: "rejected",
            decision: { email: "c@acme.test", decision: "reject", comment: "not this quarter" },
          },
        },
      },
    ]);
  });

  it("refuses an operator outside the policy and another tenant's operator, records no decision, audits the refusal", async () => {
    const taskId = await fx.start(finance2of3);
    await parked(taskId);
    const outside = await fx.decide(fx.d.token, taskId, "approve");
    expect(outside.status).toBe(403);
    expect(await outside.json()).toMatchObject({ error: "not_an_approver" });
    expect(await decisionCount(taskId)).toBe(0);
    expect(await audits(taskId, "approval.refused")).toMatchObject([
      { operator_id: fx.d.id, fields: { reason: "not_an_approver" } },
    ]);
    // Another tenant's task answers like an unknown one.
    const foreign = await fx.decide(fx.outsider.token, taskId, "approve");
    expect(foreign.status).toBe(404);
    expect((await fx.decide(fx.b.token, "00000000-0000-4000-8000-000000000000", "approve")).status).toBe(404);
    expect(await decisionCount(taskId)).toBe(0);
    expect((await fx.sql`SELECT status FROM approvals WHERE run_id = ${taskId}`)[0]?.status).toBe("open");
  });

  it("drops a cancelled run's approval from the list and refuses decisions on it", async () => {
    const taskId = await fx.start(finance2of3);
    await parked(taskId);
    await cancelRunForTenant(fx.sql, { runId: taskId, tenantId: fx.tenantId, reason: "test", actor: "test" });
    const listed = (await (
      await fetch(`${fx.origin}/api/v1/approvals?all=true`, { headers: { authorization: `Bearer ${fx.b.token}` } })
    ).json()) as { approvals: { taskId: string }[] };
    expect(listed.approvals.some((item) => item.taskId === taskId)).toBe(false);
    const late = await fx.decide(fx.b.token, taskId, "approve");
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: "not_open" });
    expect(await decisionCount(taskId)).toBe(0);
  });

  it("escalates to the second group and expires into onExpire's outcome by the store's clock", async () => {
    await createWebhook(
      { sql: fx.sql, actor: { kind: "cli", user: "test", host: "localhost" } },
      { tenantId: fx.tenantId, url: "http://127.0.0.1:9/expired", events: ["task.approval_expired"] },
      { keyMaterial: process.env.NEXTAUTH_SECRET, allowPrivate: true },
    );
    const taskId = await fx.start({
      approvers: { groups: ["finance"] },
      quorum: 2,
      expiresIn: "1h",
      onExpire: "reject",
      escalate: { after: "30m", to: { groups: ["cto"] } },
    });
    await parked(taskId);
    expect((await fx.decide(fx.e.token, taskId, "approve")).status).toBe(403);
    // The store's clock reaches the escalation: the run is claimable then (runs.claimable_at).
    await fx.sql`UPDATE approvals SET escalates_at = now() - interval '1 second' WHERE run_id = ${taskId}`;
    await fx.sql`UPDATE runs SET claimable_at = now() WHERE id = ${taskId}`;
    await waitFor(
      () => audits(taskId, "approval.escalated"),
      (rows) => rows.length === 1,
      { describe: "the escalation" },
    );
    expect((await fx.decide(fx.e.token, taskId, "approve")).status).toBe(201);
    // Then the expiry: the worker applies onExpire (reject) with the one decision made.
    await parked(taskId);
    await fx.sql`UPDATE approvals SET expires_at = now() - interval '1 second' WHERE run_id = ${taskId}`;
    expect((await fx.decide(fx.b.token, taskId, "approve")).status).toBe(409);
    await fx.sql`UPDATE runs SET claimable_at = now() WHERE id = ${taskId}`;
    const done = await finished(taskId);
    expect(done.result?.structuredContent).toMatchObject({ outcome: "rejected", decisions: [{ email: "e@acme.test" }] });
    expect(await audits(taskId, "approval.expired")).toMatchObject([{ operator_id: null, fields: { outcome: "rejected" } }]);
    const expired =
      await fx.sql`SELECT task FROM webhook_deliveries WHERE task_id = ${taskId} AND event = 'task.approval_expired'`;
    expect(expired).toMatchObject([{ task: { approval: { key: "pay", outcome: "rejected" } } }]);
    expect((await fx.sql`SELECT status, outcome FROM approvals WHERE run_id = ${taskId}`)[0]).toEqual({
      status: "expired",
      outcome: "rejected",
    });
  });
});
