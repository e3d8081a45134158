import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKey } from "../../db/queries/api-keys";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { answerPendingInput } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { waitForRunStatus } from "../helpers/runs";

/** Issue 15, legacy leg (2025-11-25 and older): one test per bullet, each failing on the code before. */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let acmeId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  acmeId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("JSON-RPC batches: accepted for 2025-03-26 and header-less requests, refused from 2025-06-18", () => {
  it("answers a batch of requests with an array, in order, and a batch of notifications with 202", async () => {
    for (const version of ["2025-03-26", null]) {
      const raw = legacyRaw(server.url, token, { version });
      const answered = await raw.post([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: "two", method: "tools/list" },
        { jsonrpc: "2.0", id: 3, method: "nope" },
      ]);
      expect(answered.status, String(version)).toBe(200);
      expect(answered.body.map((m: { id: unknown }) => m.id)).toEqual([1, "two", 3]);
      expect(answered.body[0]).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
      expect(answered.body[1].result.tools.length).toBeGreaterThan(0);
      expect(answered.body[2].error.code).toBe(-32601);
      const notifications = await raw.post([{ jsonrpc: "2.0", method: "notifications/initialized" }]);
      expect(notifications.status).toBe(202);
      const empty = await raw.post([]);
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe(-32600);
    }
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const refused = await legacyRaw(server.url, token, { version }).post([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
      expect(refused.status, version).toBe(400);
      expect(refused.body.error.code).toBe(-32600);
    }
  });
});

describe("invalid arguments on a task-augmented call", () => {
  it("answer as a tool input error (isError), not -32602, and create nothing", async () => {
    const before = Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n);
    const response = await legacyRaw(server.url, token).request("tools/call", {
      name: "durable_report",
      arguments: { report_id: 42 },
      task: {},
    });
    expect(response.body.error).toBeUndefined();
    expect(response.body.result.isError).toBe(true);
    expect(response.body.result.content[0].text).toMatch(/^Invalid arguments for durable_report: report_id/);
    expect(Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n)).toBe(before);
  });
});

describe("a JSON-mode tasks/result wait", () => {
  it("re-checks the credential: a key revoked while waiting gets an error, never the result", async () => {
    const key = await createApiKey(sql, { tenantId: acmeId, name: "json-wait" });
    const raw = legacyRaw(server.url, key.token);
    const taskId = (
      await raw.request("tools/call", { name: "approve_expense", arguments: { expense_id: "J-1", amount: 5 }, task: {} })
    ).body.result.task.taskId as string;
    await waitForRunStatus(sql, taskId, "waiting_input");
    const waiting = raw.request("tasks/result", { taskId }, { accept: "application/json" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await revokeApiKey(sql, { keyId: key.keyId });
    const answered = await answerPendingInput(sql, {
      taskId,
      tenantId: acmeId,
      key: "decision",
      response: { action: "accept", content: { decision: "approve" } },
      actor: "operator:test",
    });
    expect(answered.answered).toBe(true);
    const response = await waiting;
    expect(response.body.result).toBeUndefined();
    expect(response.body.error).toMatchObject({ code: -32600, message: "The API key is no longer valid" });
  });
});

describe("the operator channel validates answers too", () => {
  it("refuses an answer outside the request's schema and leaves the question open", async () => {
    const taskId = (
      await legacyRaw(server.url, token).request("tools/call", {
        name: "approve_expense",
        arguments: { expense_id: "O-1", amount: 5 },
        task: {},
      })
    ).body.result.task.taskId as string;
    await waitForRunStatus(sql, taskId, "waiting_input");
    const refused = await answerPendingInput(sql, {
      taskId,
      tenantId: acmeId,
      key: "decision",
      response: { action: "accept", content: { decision: "perhaps" } },
      actor: "operator:test",
    });
    expect(refused).toEqual({
      answered: false,
      resumed: false,
      invalid: 'Invalid answer to input request "decision": decision: must be one of "approve", "reject"',
    });
    expect((await sql`SELECT response FROM run_inputs WHERE run_id = ${taskId}`)[0]?.response).toBeNull();
  });
});
