import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { TASKS_EXT } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitForRunStatus, wakeSleepingRun } from "../helpers/runs";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  const seeded = await seedDemo(sql);
  token = seeded.apiKey as string;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("modern era (2026-07-28 + tasks extension) over HTTP", () => {
  it("runs durable_report as a task to completed with structuredContent", async () => {
    const client = modernClient(server.url, { token });
    const created = await client.result("tools/call", { name: "durable_report", arguments: { report_id: "q3", settle_ms: 200 } });
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    expect(Object.keys(created)).not.toContain("result");
    expect(created.ttlMs).toBeGreaterThan(0);
    const done = await client.waitFor(created.taskId, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.result.structuredContent).toMatchObject({ reportId: "q3", sections: expect.any(Array) });
    expect(done.result.content[0].text).toContain("Report q3");
  });

  it("takes approve_expense through input_required, tasks/update, and completion", async () => {
    const client = modernClient(server.url, { token });
    const created = await client.result("tools/call", { name: "approve_expense", arguments: { expense_id: "E-1", amount: 42 } });
    const waiting = await client.waitFor(created.taskId, ["input_required"]);
    expect(Object.keys(waiting.inputRequests)).toEqual(["decision"]);
    expect(waiting.inputRequests.decision.method).toBe("elicitation/create");
    const ack = await client.result("tasks/update", {
      taskId: created.taskId,
      inputResponses: { decision: { action: "accept", content: { decision: "approve", comment: "ok" } } },
    });
    expect(ack).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const done = await client.waitFor(created.taskId, ["completed"]);
    expect(done.result.structuredContent).toMatchObject({ decision: "approved", comment: "ok" });
  });

  it("cancels a sleeping task", async () => {
    const client = modernClient(server.url, { token });
    const created = await client.result("tools/call", {
      name: "durable_report",
      arguments: { report_id: "long", settle_ms: 600_000 },
    });
    await waitForRunStatus(sql, created.taskId, "sleeping");
    expect(await client.result("tasks/cancel", { taskId: created.taskId })).toMatchObject({ resultType: "complete" });
    const task = await client.result("tasks/get", { taskId: created.taskId });
    expect(task.status).toBe("cancelled");
  });

  it("streams snapshot, changes and terminal on subscriptions/listen, then closes", async () => {
    const client = modernClient(server.url, { token });
    const created = await client.result("tools/call", {
      name: "durable_report",
      arguments: { report_id: "listen", settle_ms: 600_000 },
    });
    const stream = await client.stream("subscriptions/listen", {
      notifications: { taskIds: [created.taskId, "00000000-0000-4000-8000-00000000dead"] },
    });
    expect(stream.response.headers.get("content-type")).toContain("text/event-stream");
    // The snapshot is of a task that is certainly still working; then its sleep ends and it completes.
    await stream.next((e) => e.method === "notifications/tasks");
    await wakeSleepingRun(sql, created.taskId);
    await stream.done;
    const events = stream.events;
    expect(events[0]).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [created.taskId] } },
    });
    const tasks = events.filter((e) => e.method === "notifications/tasks").map((e) => e.params);
    expect(tasks.length).toBeGreaterThanOrEqual(2);
    expect(tasks[0].status).toBe("working");
    expect(tasks.at(-1)).toMatchObject({ status: "completed", result: { structuredContent: { reportId: "listen" } } });
    for (let i = 1; i < tasks.length; i++) expect(JSON.stringify(tasks[i])).not.toBe(JSON.stringify(tasks[i - 1]));
    expect(events.at(-1)).toMatchObject({ result: { resultType: "complete" } });
  });

  it("refuses listen for taskIds without the extension, and more than 100 IDs", async () => {
    const plain = modernClient(server.url, { token, capabilities: {} });
    const undeclared = await plain.request("subscriptions/listen", { notifications: { taskIds: ["x"] } });
    expect(undeclared.body.error.code).toBe(-32021);
    const client = modernClient(server.url, { token });
    const many = await client.request("subscriptions/listen", {
      notifications: { taskIds: Array.from({ length: 101 }, (_, i) => `id-${i}`) },
    });
    expect(many.body.error.code).toBe(-32602);
  });

  it("answers a synchronous tool without a task when the extension is not declared, and -32021 for required tools", async () => {
    const conformance = await findTenantBySlug(sql, "conformance");
    const key = await createApiKey(sql, { tenantId: conformance?.id as string, name: "t" });
    const plain = modernClient(server.url, { token: key.token, capabilities: {} });
    const slow = await plain.result("tools/call", { name: "slow_compute", arguments: { seconds: 0, label: "sync" } });
    expect(slow.resultType).toBe("complete");
    expect(slow.taskId).toBeUndefined();
    const required = await plain.request("tools/call", { name: "failing_job", arguments: {} });
    expect(required.status).toBe(400);
    expect(required.body.error).toEqual({
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { extensions: { [TASKS_EXT]: {} } } },
    });
  });

  it("runs MRTR before task creation and refuses a replayed or forged requestState", async () => {
    const conformance = await findTenantBySlug(sql, "conformance");
    const key = await createApiKey(sql, { tenantId: conformance?.id as string, name: "mrtr" });
    const client = modernClient(server.url, { token: key.token });
    const round1 = await client.result("tools/call", { name: "test_tool_with_task", arguments: {} });
    expect(round1.resultType).toBe("input_required");
    expect(round1.taskId).toBeUndefined();
    const answer = { user_name: { action: "accept", content: { name: "Alice" } } };
    const round2 = await client.result("tools/call", {
      name: "test_tool_with_task",
      arguments: {},
      inputResponses: answer,
      requestState: round1.requestState,
    });
    expect(round2.resultType).toBe("task");
    expect(round2).not.toHaveProperty("requestState");
    const done = await client.waitFor(round2.taskId, ["completed"]);
    expect(done.result.content[0].text).toMatch(/Alice/);
    const replay = await client.request("tools/call", {
      name: "test_tool_with_task",
      arguments: {},
      inputResponses: answer,
      requestState: round1.requestState,
    });
    expect(replay.body.error.code).toBe(-32602);
    const forged = await client.request("tools/call", {
      name: "test_tool_with_task",
      arguments: {},
      inputResponses: answer,
      requestState: `${round1.requestState}x`,
    });
    expect(forged.body.error.code).toBe(-32602);
  });
});
