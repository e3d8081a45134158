import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectLegacyClient } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";

/**
 * The MCP caller decides through its task (runifold_task_answer, channel mcp) as the person behind
 * its credential: refused as the requester under separation of duties, refused by caller "never",
 * recorded otherwise — over real HTTP with the official SDK v1 client.
 */
let fx: ApprovalFixture;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
beforeAll(async () => {
  fx = await startApprovalFixture();
  await fx.bindTool("pay_invoice", 300);
  server = await startMcpTestServer(fx.sql, { worker: false });
});
afterAll(async () => {
  await server?.close();
  await fx?.close();
});

async function callAs(token: string, policy: Record<string, unknown>) {
  const session = await connectLegacyClient(server.url, token);
  const first = await session.client.callTool({ name: "pay_invoice", arguments: { policy, amount: 300 } });
  const taskId = (first.structuredContent as { taskId: string }).taskId;
  await fx.parked(taskId);
  const answer = (decision: string) =>
    session.client.callTool({
      name: "runifold_task_answer",
      arguments: { taskId, key: "pay", response: { action: "accept", content: { decision, comment: "via MCP" } } },
    });
  return { ...session, taskId, answer };
}

describe("approvals decided by the MCP caller", { timeout: 60_000 }, () => {
  it("refuses the requester under separation of duties, records nothing, audits it", async () => {
    const session = await callAs(fx.b.token, { approvers: { groups: ["finance"] } });
    const { taskId, answer, close } = session;
    try {
      const status = await session.client.callTool({ name: "runifold_task_status", arguments: { taskId } });
      expect(status.structuredContent).toMatchObject({
        status: "working",
        statusMessage: "Waiting for approval 'pay': 0 of 1 from group finance",
        waitingFor: { kind: "approval", key: "pay" },
      });
      expect(JSON.stringify(status.content)).toContain("runifold_task_answer");
      const refused = await answer("approve");
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain("Separation of duties");
      expect(await fx.sql`SELECT 1 FROM approval_decisions WHERE run_id = ${taskId}`).toHaveLength(0);
      const audit =
        await fx.sql`SELECT operator_id, fields FROM audit_events WHERE action = 'approval.refused' AND fields->>'taskId' = ${taskId}`;
      expect(audit).toMatchObject([{ operator_id: fx.b.id, fields: { reason: "separation_of_duties", channel: "mcp" } }]);
    } finally {
      await close();
    }
  });

  it("records an eligible caller's decision with channel mcp, and refuses every caller under caller 'never'", async () => {
    const open = await callAs(fx.c.token, { approvers: { groups: ["finance"] }, separationOfDuties: false });
    try {
      const recorded = await open.answer("approve");
      expect(recorded.isError).toBe(false);
      expect(JSON.stringify(recorded.content)).toContain("the approval is approved");
      expect(await fx.sql`SELECT email, channel, comment FROM approval_decisions WHERE run_id = ${open.taskId}`).toEqual([
        { email: "c@acme.test", channel: "mcp", comment: "via MCP" },
      ]);
    } finally {
      await open.close();
    }
    const never = await callAs(fx.c.token, { approvers: { groups: ["finance"] }, separationOfDuties: false, caller: "never" });
    try {
      const refused = await never.answer("approve");
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain("does not let the MCP caller decide");
      expect(await fx.sql`SELECT 1 FROM approval_decisions WHERE run_id = ${never.taskId}`).toHaveLength(0);
    } finally {
      await never.close();
    }
  });
});
