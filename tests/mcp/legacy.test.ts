import { CallToolResultSchema, CreateTaskResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findActiveRoute } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey, type Principal, verifyApiKey } from "../../lib/auth";
import { createTaskFromRoute } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { connectLegacyClient } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { waitForRunStatus } from "../helpers/runs";
import { holdsFor } from "../helpers/wait-for";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

/** L7: every Task the server sends has these fields. */
function expectTaskShape(task: Record<string, unknown>) {
  expect(task.taskId).toEqual(expect.any(String));
  expect(["working", "input_required", "completed", "failed", "cancelled"]).toContain(task.status);
  expect(task.createdAt).toMatch(ISO);
  expect(task.lastUpdatedAt).toMatch(ISO);
  expect(task.ttl === null || Number.isInteger(task.ttl)).toBe(true);
  expect(task).not.toHaveProperty("ttlMs");
}

describe("legacy era (2025-11-25 tasks) with the official SDK v1 client", () => {
  // Covers L1 (capabilities), L2 (taskSupport in tools/list), L6 (immediate {task} working), L7, L9 (flat get), L11, L12.
  it("callToolStream for durable_report yields taskCreated → status → result with structuredContent", async () => {
    const { client, close } = await connectLegacyClient(server.url, token);
    try {
      expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "durable_report")?.execution).toEqual({ taskSupport: "optional" });
      const seen: string[] = [];
      let result: Record<string, unknown> | undefined;
      let taskId = "";
      for await (const message of client.experimental.tasks.callToolStream(
        { name: "durable_report", arguments: { report_id: "q3", settle_ms: 300 } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        seen.push(message.type);
        if (message.type === "taskCreated") {
          expectTaskShape(message.task);
          expect(message.task.status).toBe("working");
          expect(message.task.ttl).toBe(60_000);
          taskId = message.task.taskId;
        }
        if (message.type === "taskStatus") expectTaskShape(message.task);
        if (message.type === "result") result = message.result;
        if (message.type === "error") throw message.error;
      }
      expect(seen[0]).toBe("taskCreated");
      expect(seen).toContain("taskStatus");
      expect(seen.at(-1)).toBe("result");
      expect(result?.structuredContent).toMatchObject({ reportId: "q3", sections: expect.any(Array) });
      expect(result?._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId } });
      const task = await client.experimental.tasks.getTask(taskId);
      expect(task).toMatchObject({ taskId, status: "completed", ttl: 60_000, pollInterval: expect.any(Number) });
      expect(task._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined();
    } finally {
      await close();
    }
  });

  // Covers L6, L11 (tasks/result blocks through input_required), L13 (isError → failed), L15 (elicitation carries related-task meta).
  it("approve_expense reaches input_required, the client's elicitation handler answers, the task completes with that decision", async () => {
    const elicitations: unknown[] = [];
    const { client, close } = await connectLegacyClient(server.url, token, {
      onElicit: (request) => {
        elicitations.push(request.params);
        return { action: "accept", content: { decision: "approve", comment: "fine" } };
      },
    });
    try {
      const seen: string[] = [];
      let result: Record<string, unknown> | undefined;
      for await (const message of client.experimental.tasks.callToolStream(
        { name: "approve_expense", arguments: { expense_id: "E-7", amount: 12.5 } },
        CallToolResultSchema,
        { task: {} },
      )) {
        seen.push(message.type === "taskStatus" ? message.task.status : message.type);
        if (message.type === "result") result = message.result;
        if (message.type === "error") throw message.error;
      }
      expect(seen).toContain("input_required");
      expect(elicitations).toHaveLength(1);
      expect(elicitations[0]).toMatchObject({
        mode: "form",
        requestedSchema: { properties: { decision: { enum: ["approve", "reject"] } } },
        _meta: { "io.modelcontextprotocol/related-task": { taskId: expect.any(String) } },
      });
      expect(result?.structuredContent).toMatchObject({ expenseId: "E-7", decision: "approved", comment: "fine" });
      expect(result?.isError).toBeUndefined();
    } finally {
      await close();
    }
  });

  // Covers L8 (unique random IDs), L18 (pagination, bad/foreign cursor -32602, only the caller's tasks, all reachable listed).
  it("listTasks pages the calling key's tasks newest first, and refuses a bad or foreign cursor", async () => {
    const tenant = await findTenantBySlug(sql, "tenant-acme");
    const key = await createApiKey(sql, { tenantId: tenant?.id as string, name: "lister" });
    const principal = (await verifyApiKey(sql, key.token)) as Principal;
    const route = await findActiveRoute(sql, principal.tenantId, "approve_expense");
    const created: string[] = [];
    for (let i = 0; i < 55; i++) {
      const task = await createTaskFromRoute(sql, {
        principal,
        route: route as NonNullable<typeof route>,
        args: { expense_id: `L-${i}`, amount: 1 },
        origin: "legacy",
      });
      created.push(task.id);
    }
    const { client, close } = await connectLegacyClient(server.url, key.token);
    try {
      const first = await client.experimental.tasks.listTasks();
      expect(first.tasks).toHaveLength(50);
      expect(first.nextCursor).toEqual(expect.any(String));
      expect(first._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined();
      for (const task of first.tasks) expectTaskShape(task);
      const second = await client.experimental.tasks.listTasks(first.nextCursor);
      expect(second.tasks).toHaveLength(5);
      expect(second.nextCursor).toBeUndefined();
      const listed = [...first.tasks, ...second.tasks].map((t) => t.taskId);
      expect(new Set(listed).size).toBe(55);
      expect([...listed].sort()).toEqual([...created].sort());
      for (const id of listed) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // newest first
      const times = [...first.tasks, ...second.tasks].map((t) => Date.parse(t.createdAt));
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1] as number);

      for (const bad of ["garbage!", Buffer.from('{"v":1}').toString("base64url"), "x".repeat(500)]) {
        const error = await client.experimental.tasks.listTasks(bad).catch((e) => e);
        expect(error).toBeInstanceOf(McpError);
        expect(error.code).toBe(-32602);
      }
      // A cursor issued to another key is not valid for this one.
      const { client: demo, close: closeDemo } = await connectLegacyClient(server.url, token);
      try {
        const foreign = await demo.experimental.tasks.listTasks(first.nextCursor).catch((e) => e);
        expect(foreign.code).toBe(-32602);
      } finally {
        await closeDemo();
      }
    } finally {
      await close();
    }
  });

  // Covers L14 (terminal never changes), L16 (cancel → cancelled, stays), L17 (terminal → -32602), L9/L19 (unknown ID -32602), L15 (no related-task meta on cancel/get).
  it("cancelTask returns the task cancelled, it stays cancelled; a second cancel and unknown IDs get -32602", async () => {
    const { client, close } = await connectLegacyClient(server.url, token);
    try {
      const created = await client.request(
        {
          method: "tools/call",
          params: { name: "durable_report", arguments: { report_id: "long", settle_ms: 600_000 }, task: { ttl: 120_000 } },
        },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      await waitForRunStatus(sql, taskId, "sleeping");
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      expectTaskShape(cancelled);
      expect(cancelled).toMatchObject({ taskId, status: "cancelled", ttl: 120_000 });
      expect(cancelled._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined();
      await holdsFor(
        async () => (await client.experimental.tasks.getTask(taskId)).status,
        (status) => status === "cancelled",
        { describe: "the cancelled task to stay cancelled", forMs: 300 },
      );
      const again = await client.experimental.tasks.cancelTask(taskId).catch((e) => e);
      expect(again).toBeInstanceOf(McpError);
      expect(again.code).toBe(-32602);
      expect(again.message).toContain("already in terminal status 'cancelled'");
      // tasks/result of a cancelled task: the ordinary path's cancelled tool result, with related-task meta.
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result).toMatchObject({ isError: true, _meta: { "io.modelcontextprotocol/related-task": { taskId } } });

      const unknown = "00000000-0000-4000-8000-000000000000";
      const errors = await Promise.all([
        client.experimental.tasks.getTask(unknown).catch((e) => e),
        client.experimental.tasks.getTaskResult(unknown, CallToolResultSchema).catch((e) => e),
        client.experimental.tasks.cancelTask(unknown).catch((e) => e),
        client.experimental.tasks.getTask("not-a-uuid").catch((e) => e),
      ]);
      for (const error of errors) {
        expect(error).toBeInstanceOf(McpError);
        expect(error.code).toBe(-32602);
        expect(error.message).toContain("Task not found");
      }
    } finally {
      await close();
    }
  });

  // Covers L18 (list filtered by auth context) and L19 (get/result/cancel from another context → -32602, same as unknown).
  it("binds tasks to tenant and key: another tenant's key and another key of the same tenant see nothing", async () => {
    const { client, close } = await connectLegacyClient(server.url, token);
    const created = await client.request(
      { method: "tools/call", params: { name: "approve_expense", arguments: { expense_id: "B-1", amount: 3 }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    await close();
    const conformance = await findTenantBySlug(sql, "conformance");
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const otherTenant = await createApiKey(sql, { tenantId: conformance?.id as string, name: "other-tenant" });
    const otherKey = await createApiKey(sql, { tenantId: acme?.id as string, name: "other-key" });
    const unknownId = "00000000-0000-4000-8000-0000000000ff";
    for (const foreignToken of [otherTenant.token, otherKey.token]) {
      const { client: foreign, close: closeForeign } = await connectLegacyClient(server.url, foreignToken);
      try {
        const listed = await foreign.experimental.tasks.listTasks();
        expect(listed.tasks.map((t) => t.taskId)).not.toContain(taskId);
        const errors = await Promise.all([
          foreign.experimental.tasks.getTask(taskId).catch((e) => e),
          foreign.experimental.tasks.getTaskResult(taskId, CallToolResultSchema).catch((e) => e),
          foreign.experimental.tasks.cancelTask(taskId).catch((e) => e),
        ]);
        const unknown = await foreign.experimental.tasks.getTask(unknownId).catch((e) => e);
        for (const error of errors) {
          expect(error).toBeInstanceOf(McpError);
          expect({ code: error.code, message: error.message }).toEqual({ code: unknown.code, message: unknown.message });
          expect(error.code).toBe(-32602);
        }
      } finally {
        await closeForeign();
      }
    }
    expect((await sql`SELECT status FROM runs WHERE id = ${taskId}`)[0]?.status).not.toBe("cancelled");
    const other = await connectLegacyClient(server.url, otherTenant.token);
    expect((await other.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    await other.close();
  });

  // Covers L3 and L4 through the SDK's raw client.request (which skips the client-side checks of callTool):
  // -32601 from the server, and no run row written.
  it("answers task-mode mismatches sent with the SDK's raw request with -32601 and writes nothing", async () => {
    const conformance = await findTenantBySlug(sql, "conformance");
    const key = await createApiKey(sql, { tenantId: conformance?.id as string, name: "modes" });
    const { client, close } = await connectLegacyClient(server.url, key.token);
    try {
      const before = (await sql`SELECT count(*)::int AS n FROM runs WHERE tenant_id = ${conformance?.id as string}`)[0]?.n;
      const required = await client
        .request({ method: "tools/call", params: { name: "failing_job", arguments: {} } }, CallToolResultSchema)
        .catch((e) => e);
      expect(required).toBeInstanceOf(McpError);
      expect(required.code).toBe(-32601);
      const forbidden = await client
        .request({ method: "tools/call", params: { name: "greet", arguments: { name: "x" } } }, CreateTaskResultSchema, {
          task: { ttl: 10_000 },
        })
        .catch((e) => e);
      expect(forbidden).toBeInstanceOf(McpError);
      expect(forbidden.code).toBe(-32601);
      const after = (await sql`SELECT count(*)::int AS n FROM runs WHERE tenant_id = ${conformance?.id as string}`)[0]?.n;
      expect(after).toBe(before);
    } finally {
      await close();
    }
  });

  // Scopes: creating a task and answering an elicitation need tasks:write; reading needs tasks:read.
  it("refuses task creation and elicitation answers without tasks:write (403 insufficient_scope)", async () => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const readOnly = await createApiKey(sql, { tenantId: acme?.id as string, name: "read-only", scopes: ["mcp", "tasks:read"] });
    const post = (body: unknown) =>
      fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${readOnly.token}`,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify(body),
      });
    const create = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "durable_report", arguments: { report_id: "s" }, task: {} },
    });
    expect(create.status).toBe(403);
    expect(create.headers.get("www-authenticate")).toContain("insufficient_scope");
    const answer = await post({
      jsonrpc: "2.0",
      id: "rf-input:00000000-0000-4000-8000-000000000000:decision",
      result: { action: "accept", content: {} },
    });
    expect(answer.status).toBe(403);
    const list = await post({ jsonrpc: "2.0", id: 2, method: "tasks/list", params: {} });
    expect(list.status).toBe(200);
  });
});
