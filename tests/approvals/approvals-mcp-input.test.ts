import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectLegacyClient } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";

/**
 * An MCP caller whose person may decide an approval sees its task as input_required with the
 * decision form — in tasks/get of both eras, in legacy tasks/result's elicitation/create, in the
 * modern inputRequests and in the handle — and answers it there (channel mcp); a caller who may not
 * decide sees `working`, and its answer is refused, audited, and records nothing. Real HTTP, the
 * official SDK v1 client for the legacy era, a raw 2026-07-28 client for the modern one.
 */
let fx: ApprovalFixture;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
beforeAll(async () => {
  fx = await startApprovalFixture();
  await fx.bindTool("pay_invoice", 300);
  // The same workflow with time enough for an ordinary (task-less) 2026-07-28 call to see the approval open.
  await fx.bindTool("pay_invoice_now", 15_000);
  server = await startMcpTestServer(fx.sql, { worker: false });
});
afterAll(async () => {
  await server?.close();
  await fx?.close();
});

/** Finance may decide; separation of duties off, so the caller who started the run may be one of them. */
const POLICY = { approvers: { groups: ["finance"] }, separationOfDuties: false };
const parked = (taskId: string) => fx.parked(taskId);

async function legacyTask(token: string, options: Parameters<typeof connectLegacyClient>[2] = {}) {
  const session = await connectLegacyClient(server.url, token, options);
  const created = await session.client.request(
    { method: "tools/call", params: { name: "pay_invoice", arguments: { policy: POLICY, amount: 300 }, task: { ttl: 300_000 } } },
    CreateTaskResultSchema,
  );
  await parked(created.task.taskId);
  return { ...session, taskId: created.task.taskId };
}

describe("an approval as the MCP caller's input", { timeout: 60_000 }, () => {
  it("legacy: input_required for the eligible caller only; the decision form arrives on tasks/result and is decided there", async () => {
    const asked: ElicitRequest[] = [];
    const c = await legacyTask(fx.c.token, {
      onElicit: (request) => {
        asked.push(request);
        return { action: "accept", content: { decision: "approve", comment: "ok by C" } };
      },
    });
    const d = await legacyTask(fx.d.token);
    const b = await connectLegacyClient(server.url, fx.b.token);
    try {
      expect(await c.client.experimental.tasks.getTask(c.taskId)).toMatchObject({
        status: "input_required",
        statusMessage: "Waiting for approval 'pay': 0 of 1 from group finance",
      });
      // tasks/list says the same as tasks/get.
      const listed = (await c.client.experimental.tasks.listTasks()).tasks.find((task) => task.taskId === c.taskId);
      expect(listed?.status).toBe("input_required");
      // D is not in finance: the same kind of task stays working for them.
      expect((await d.client.experimental.tasks.getTask(d.taskId)).status).toBe("working");
      expect((await d.client.experimental.tasks.listTasks()).tasks.find((task) => task.taskId === d.taskId)?.status).toBe(
        "working",
      );
      // Another credential of the tenant (B, in finance) cannot reach C's task at all.
      await expect(b.client.experimental.tasks.getTask(c.taskId)).rejects.toThrow(/Task not found/);

      const result = await c.client.experimental.tasks.getTaskResult(c.taskId, CallToolResultSchema);
      expect(asked).toHaveLength(1);
      expect(asked[0]?.params).toMatchObject({
        message: "Pay 300 EUR?",
        requestedSchema: {
          type: "object",
          properties: { decision: { type: "string", enum: ["approve", "reject"] }, comment: { type: "string" } },
          required: ["decision"],
        },
        _meta: { "io.modelcontextprotocol/related-task": { taskId: c.taskId } },
      });
      expect(result.structuredContent).toMatchObject({
        outcome: "approved",
        decisions: [{ email: "c@acme.test", channel: "mcp", decision: "approve", comment: "ok by C" }],
      });
      expect((await c.client.experimental.tasks.getTask(c.taskId)).status).toBe("completed");
      // D's task is still waiting for someone in finance.
      expect((await d.client.experimental.tasks.getTask(d.taskId)).status).toBe("working");
    } finally {
      await Promise.all([c.close(), d.close(), b.close()]);
    }
  });

  it("modern: inputRequests carry the form; tasks/update decides for the eligible caller and is refused (audited) for another", async () => {
    const c = modernClient(server.url, { token: fx.c.token });
    const d = modernClient(server.url, { token: fx.d.token });
    const mine = await c.result("tools/call", { name: "pay_invoice", arguments: { policy: POLICY, amount: 410 } });
    const theirs = await d.result("tools/call", { name: "pay_invoice", arguments: { policy: POLICY, amount: 420 } });
    await parked(mine.taskId);
    await parked(theirs.taskId);

    const waiting = await c.waitFor(mine.taskId, ["input_required"]);
    expect(Object.keys(waiting.inputRequests)).toEqual(["pay"]);
    expect(waiting.inputRequests.pay).toMatchObject({
      method: "elicitation/create",
      params: {
        message: "Pay 410 EUR?",
        requestedSchema: { properties: { decision: { enum: ["approve", "reject"] } }, required: ["decision"] },
      },
    });
    const other = (await d.request("tasks/get", { taskId: theirs.taskId })).body.result;
    expect(other.status).toBe("working");
    expect(other.inputRequests).toBeUndefined();

    // D answers anyway: refused with the policy's reason, audited, nothing recorded.
    const refused = await d.request("tasks/update", {
      taskId: theirs.taskId,
      inputResponses: { pay: { action: "accept", content: { decision: "approve" } } },
    });
    expect(refused.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("not an approver") });
    expect(await fx.sql`SELECT 1 FROM approval_decisions WHERE run_id = ${theirs.taskId}`).toHaveLength(0);
    expect(
      await fx.sql`SELECT fields FROM audit_events WHERE action = 'approval.refused' AND fields->>'taskId' = ${theirs.taskId}`,
    ).toMatchObject([{ fields: { reason: "not_an_approver", channel: "mcp" } }]);

    // An answer outside the form is invalid, and changes nothing.
    const invalid = await c.request("tasks/update", {
      taskId: mine.taskId,
      inputResponses: { pay: { action: "accept", content: { decision: "maybe" } } },
    });
    expect(invalid.body.error).toMatchObject({ code: -32602 });
    expect(await fx.sql`SELECT 1 FROM approval_decisions WHERE run_id = ${mine.taskId}`).toHaveLength(0);

    const ack = await c.result("tasks/update", {
      taskId: mine.taskId,
      inputResponses: { pay: { action: "accept", content: { decision: "reject", comment: "not this month" } } },
    });
    expect(ack.resultType).toBe("complete");
    const done = await c.waitFor(mine.taskId, ["completed"]);
    expect(done.result.structuredContent).toMatchObject({
      outcome: "rejected",
      decisions: [{ email: "c@acme.test", channel: "mcp", decision: "reject", comment: "not this month" }],
    });
  });

  it("the handle says input_required with the decision form for the eligible caller, working for another", async () => {
    const handleOf = async (token: string) => {
      const session = await connectLegacyClient(server.url, token);
      const first = await session.client.callTool({ name: "pay_invoice", arguments: { policy: POLICY, amount: 510 } });
      const taskId = (first.structuredContent as { taskId: string }).taskId;
      await parked(taskId);
      const status = await session.client.callTool({ name: "runifold_task_status", arguments: { taskId } });
      await session.close();
      return status;
    };
    const eligible = await handleOf(fx.c.token);
    expect(eligible.structuredContent).toMatchObject({
      status: "input_required",
      waitingFor: { kind: "approval", key: "pay", requestedSchema: { required: ["decision"] } },
    });
    expect(JSON.stringify(eligible.content)).toContain("your user may decide");
    const other = await handleOf(fx.d.token);
    expect(other.structuredContent).toMatchObject({ status: "working", waitingFor: { kind: "approval", key: "pay" } });
    expect((other.structuredContent as { waitingFor: Record<string, unknown> }).waitingFor.requestedSchema).toBeUndefined();
  });

  it("modern ordinary call: the round's inputRequests carry the form, and its retry decides", async () => {
    const client = modernClient(server.url, { token: fx.c.token, capabilities: { elicitation: {} } });
    const args = { policy: POLICY, amount: 610 };
    const first = await client.request("tools/call", { name: "pay_invoice_now", arguments: args });
    const round = first.body.result;
    expect(round).toMatchObject({
      resultType: "input_required",
      inputRequests: { pay: { method: "elicitation/create", params: { requestedSchema: { required: ["decision"] } } } },
      requestState: expect.any(String),
    });
    const done = await client.request("tools/call", {
      name: "pay_invoice_now",
      arguments: args,
      inputResponses: { pay: { action: "accept", content: { decision: "approve", comment: "in the round" } } },
      requestState: round.requestState,
    });
    expect(done.body.result).toMatchObject({
      resultType: "complete",
      structuredContent: { outcome: "approved", decisions: [{ email: "c@acme.test", channel: "mcp", comment: "in the round" }] },
    });
  });
});
