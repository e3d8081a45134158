import { randomUUID } from "node:crypto";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findActiveRoute, insertRouteRevision } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { definitionsFromStore, SEED_ACTOR, saveRoute, setTenantHandleTools } from "../../lib/admin";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { connectLegacyClient, legacyRaw, legacySession } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitFor } from "../helpers/wait-for";

/**
 * Acceptance (issue 29, DESIGN §8): a client that negotiated no tasks gets a task handle for work
 * that outlives its call, and follows, answers and finishes it with the companion tools — the
 * official SDK v1 client (2025-11-25) and the SDK v2 client (2026-07-28), over real HTTP.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let otherKey: string;
let quietToken: string;

const COMPANIONS = [
  "runifold_task_status",
  "runifold_task_wait",
  "runifold_task_answer",
  "runifold_task_cancel",
  "runifold_task_list",
];
const APPROVE = { action: "accept", content: { decision: "approve", comment: "fine" } };

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  const acme = await findTenantBySlug(sql, "tenant-acme");
  otherKey = (await createApiKey(sql, { tenantId: acme?.id as string, name: "other" })).token;
  const report = await findActiveRoute(sql, acme?.id as string, "durable_report");
  await insertRouteRevision(sql, {
    tenantId: acme?.id as string,
    toolName: "report_fast",
    workflowName: "generate-report",
    workflowVersion: 1,
    inputSchema: report?.input_schema as Record<string, unknown>,
    taskSupport: "optional",
    syncDeadlineMs: 500,
  });
  // A tenant that turned handles off: no companion tools, and the old "still running" answer.
  const conformance = await findTenantBySlug(sql, "conformance");
  await setTenantHandleTools({ sql, actor: SEED_ACTOR }, { tenantId: conformance?.id as string, on: false });
  quietToken = (await createApiKey(sql, { tenantId: conformance?.id as string, name: "quiet" })).token;
  await insertRouteRevision(sql, {
    tenantId: conformance?.id as string,
    toolName: "slow_fast_deadline",
    workflowName: "conformance-slow-compute",
    workflowVersion: 1,
    inputSchema: { type: "object" },
    taskSupport: "optional",
    syncDeadlineMs: 300,
  });
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

/** What a tasks client gets for approve_expense with these arguments, answered "approve": the reference result. */
async function tasksClientResult(args: Record<string, unknown>) {
  const client = modernClient(server.url, { token });
  const created = await client.result("tools/call", { name: "approve_expense", arguments: args });
  expect(created.resultType).toBe("task");
  await waitFor(
    () => client.result("tasks/get", { taskId: created.taskId }),
    (t) => t.status === "input_required",
    { describe: "the reference task to ask", timeoutMs: 20_000 },
  );
  await client.result("tasks/update", { taskId: created.taskId, inputResponses: { decision: APPROVE } });
  const done = await waitFor(
    () => client.result("tasks/get", { taskId: created.taskId }),
    (t) => t.status === "completed",
    { describe: "the reference task to complete", timeoutMs: 20_000 },
  );
  const { resultType: _complete, ...result } = done.result;
  return result;
}

const toolNames = (tools: { name: string }[]) => tools.map((tool) => tool.name);

describe("task handles for clients without tasks", () => {
  it("SDK v1 (2025-11-25), neither tasks nor elicitation: handle → list → answer → wait returns what a tasks client gets", async () => {
    const args = { expense_id: "TH-1", amount: 12.5 };
    const reference = await tasksClientResult(args);
    const { client, close } = await connectLegacyClient(server.url, token);
    try {
      expect(toolNames((await client.listTools()).tools)).toEqual(
        expect.arrayContaining(["approve_expense", "durable_report", ...COMPANIONS]),
      );
      const first = await client.callTool({ name: "approve_expense", arguments: args });
      expect(first.isError).toBe(false);
      const handle = first.structuredContent as { taskId: string };
      expect(handle).toMatchObject({
        taskId: expect.any(String),
        status: "input_required",
        statusMessage: "Waiting for an operator of tenant-acme to answer 'decision'",
        waitingFor: { kind: "input", questions: [{ key: "decision", message: expect.stringContaining("TH-1") }] },
        pollAfterMs: expect.any(Number),
      });
      expect(JSON.stringify(first.content)).toContain("runifold_task_answer");

      const listed = await client.callTool({ name: "runifold_task_list", arguments: {} });
      const tasks = (listed.structuredContent as { tasks: { taskId: string; tool: string }[] }).tasks;
      expect(tasks[0]).toMatchObject({ taskId: handle.taskId, tool: "approve_expense", status: "input_required" });

      // An answer that does not fit the question is a tool error the model can correct; nothing is written.
      const invalid = await client.callTool({
        name: "runifold_task_answer",
        arguments: { taskId: handle.taskId, key: "decision", response: { action: "accept", content: { decision: "maybe" } } },
      });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toContain("not accepted");
      const still = await client.callTool({ name: "runifold_task_status", arguments: { taskId: handle.taskId } });
      expect((still.structuredContent as { status: string }).status).toBe("input_required");

      const answered = await client.callTool({
        name: "runifold_task_answer",
        arguments: { taskId: handle.taskId, key: "decision", response: APPROVE },
      });
      expect(answered.isError).toBe(false);
      const waited = await client.callTool({
        name: "runifold_task_wait",
        arguments: { taskId: handle.taskId, timeoutSeconds: 30 },
      });
      expect(waited).toEqual(reference);
    } finally {
      await close();
    }
  });

  it("SDK v2 (2026-07-28), no tasks extension: the same flow gives the same result", async () => {
    const args = { expense_id: "TH-2", amount: 7 };
    const reference = await tasksClientResult(args);
    const client = new ClientV2({ name: "handles-v2", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new TransportV2(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(toolNames((await client.listTools()).tools)).toEqual(expect.arrayContaining(COMPANIONS));
      const first = await client.callTool({ name: "approve_expense", arguments: args });
      expect(first.isError).toBe(false);
      const handle = first.structuredContent as { taskId: string; status: string };
      expect(handle.status).toBe("input_required");
      const listed = await client.callTool({ name: "runifold_task_list", arguments: {} });
      expect((listed.structuredContent as { tasks: { taskId: string }[] }).tasks.map((t) => t.taskId)).toContain(handle.taskId);
      const answered = await client.callTool({
        name: "runifold_task_answer",
        arguments: { taskId: handle.taskId, key: "decision", response: APPROVE },
      });
      expect(answered.isError).toBe(false);
      const waited = await client.callTool({ name: "runifold_task_wait", arguments: { taskId: handle.taskId } });
      const { resultType: _complete, _meta: _serverInfo, ...result } = waited as Record<string, unknown>;
      expect(result).toEqual(reference);
    } finally {
      await client.close();
    }
  });

  it("another key's handle is 'not found', exactly like an ID that never existed, and is not listed", async () => {
    const mine = modernClient(server.url, { token, capabilities: {} });
    const handle = (await mine.result("tools/call", { name: "approve_expense", arguments: { expense_id: "TH-3", amount: 1 } }))
      .structuredContent;
    const theirs = modernClient(server.url, { token: otherKey, capabilities: {} });
    const unknown = randomUUID();
    for (const tool of ["runifold_task_status", "runifold_task_wait", "runifold_task_cancel"]) {
      const foreign = await theirs.result("tools/call", { name: tool, arguments: { taskId: handle.taskId } });
      const never = await theirs.result("tools/call", { name: tool, arguments: { taskId: unknown } });
      expect(foreign.isError).toBe(true);
      expect(JSON.stringify(foreign).replaceAll(handle.taskId, "ID")).toBe(JSON.stringify(never).replaceAll(unknown, "ID"));
    }
    const answer = await theirs.result("tools/call", {
      name: "runifold_task_answer",
      arguments: { taskId: handle.taskId, key: "decision", response: APPROVE },
    });
    expect(answer.content[0].text).toBe(`Task not found: ${handle.taskId}`);
    const listed = await theirs.result("tools/call", { name: "runifold_task_list", arguments: {} });
    expect(listed.structuredContent.tasks.map((t: { taskId: string }) => t.taskId)).not.toContain(handle.taskId);
    // Still waiting: the other key changed nothing.
    const status = await mine.result("tools/call", { name: "runifold_task_status", arguments: { taskId: handle.taskId } });
    expect(status.structuredContent.status).toBe("input_required");
  });

  it("past the route's deadline a running call answers with its handle; wait returns the result once it is done", async () => {
    const client = modernClient(server.url, { token, capabilities: {} });
    const call = await client.result("tools/call", { name: "report_fast", arguments: { report_id: "TH-4", settle_ms: 3_000 } });
    expect(call).toMatchObject({ resultType: "complete", isError: false, structuredContent: { status: "working" } });
    expect(call.content[0].text).toMatch(/^Still running after 1s\. Task .* is still running/);
    expect(call.content[0].text).toContain("runifold_task_wait");
    const taskId = call.structuredContent.taskId;
    const sleeping = await waitFor(
      () => client.result("tools/call", { name: "runifold_task_status", arguments: { taskId } }),
      (r) => r.structuredContent.waitingFor?.kind === "timer",
      { describe: "the report to sleep", timeoutMs: 10_000 },
    );
    expect(sleeping.structuredContent.statusMessage).toMatch(/^Sleeping until \d\d:\d\d(:\d\d)? UTC$/);
    const waited = await client.result("tools/call", { name: "runifold_task_wait", arguments: { taskId, timeoutSeconds: 20 } });
    expect(waited).toMatchObject({ resultType: "complete", structuredContent: { reportId: "TH-4" } });
    expect(waited.isError).toBeUndefined();
  });

  it("cancel through the handle cancels the run; bad arguments are tool errors", async () => {
    const client = modernClient(server.url, { token, capabilities: {} });
    const { taskId } = (
      await client.result("tools/call", { name: "approve_expense", arguments: { expense_id: "TH-5", amount: 1 } })
    ).structuredContent;
    const cancelled = await client.result("tools/call", { name: "runifold_task_cancel", arguments: { taskId } });
    expect(cancelled.structuredContent.status).toBe("cancelled");
    const waited = await client.result("tools/call", { name: "runifold_task_wait", arguments: { taskId } });
    expect(waited).toMatchObject({ isError: true, content: [{ text: `Task ${taskId} was cancelled.` }] });
    const badTimeout = await client.result("tools/call", {
      name: "runifold_task_wait",
      arguments: { taskId, timeoutSeconds: 56 },
    });
    expect(badTimeout.isError).toBe(true);
    const noId = await client.result("tools/call", { name: "runifold_task_status", arguments: {} });
    expect(noId.isError).toBe(true);
  });

  it("lists the companion tools only to clients that negotiated no tasks", async () => {
    const tasksClient = await modernClient(server.url, { token }).result("tools/list");
    expect(toolNames(tasksClient.tools)).not.toContain("runifold_task_status");
    const plain = await modernClient(server.url, { token, capabilities: {} }).result("tools/list");
    expect(toolNames(plain.tools)).toEqual([...toolNames(tasksClient.tools), ...COMPANIONS]);
    const declared = await legacySession(server.url, token, { tasks: { requests: { elicitation: { create: {} } } } });
    const legacyTasks = await legacyRaw(server.url, token, { headers: declared }).request("tools/list");
    expect(toolNames(legacyTasks.body.result.tools)).not.toContain("runifold_task_status");
  });

  it("a tenant that turned handles off lists no companion tools and answers past the deadline as before", async () => {
    const quiet = modernClient(server.url, { token: quietToken, capabilities: {} });
    expect(toolNames((await quiet.result("tools/list")).tools)).not.toContain("runifold_task_wait");
    const call = await quiet.result("tools/call", { name: "slow_fast_deadline", arguments: { seconds: 5 } });
    expect(call).toMatchObject({ isError: true, structuredContent: { status: "working" } });
    expect(call.content[0].text).toMatch(/^Still running after 0s; the work continues as task/);
    const companion = await quiet.request("tools/call", { name: "runifold_task_list", arguments: {} });
    expect(companion.body.error).toMatchObject({ code: -32602, message: "Unknown tool: runifold_task_list" });
  });

  it("the sync deadline is a route setting with a documented maximum (900000 ms)", async () => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const ctx = { sql, actor: SEED_ACTOR, resolveDefinition: definitionsFromStore(sql) };
    const route = { tenantId: acme?.id as string, toolName: "report_long", workflowName: "generate-report", workflowVersion: 1 };
    await expect(saveRoute(ctx, { ...route, syncDeadlineMs: 900_001 })).rejects.toThrow(/900000/);
    expect((await saveRoute(ctx, { ...route, syncDeadlineMs: 900_000 })).route.sync_deadline_ms).toBe(900_000);
    expect((await saveRoute(ctx, { ...route, toolName: "report_default" })).route.sync_deadline_ms).toBe(30_000);
  });
});
