import { CallToolResultSchema, CreateTaskResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findActiveRoute } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { type Principal, verifyApiKey } from "../../lib/auth/api-keys";
import { createTaskFromRoute } from "../../lib/tasks/create-task";
import { seedDemo } from "../../lib/tasks/demo-seed";
import { shippedWorkflows } from "../../workers/workflows";
import { freshDatabase } from "../helpers/db";
import { connectLegacyClient } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";

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
});
