import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKey } from "../../db/queries/api-keys";
import { insertRouteRevision } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw } from "../helpers/legacy-client";
import { TASKS_ONLY, WITH_ELICITATION } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitForRunStatus } from "../helpers/runs";

/**
 * Issue 15, modern leg (2026-07-28 + io.modelcontextprotocol/tasks) and the cross-era items: one
 * test per bullet, each of which failed on the code before the issue (the probes of
 * research/review-mcp.md §6, PM1–PM25, turned into assertions).
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let acmeId: string;
let conformanceId: string;
let conformanceToken: string;

const NAME_REQUEST = (message: string) => ({
  method: "elicitation/create",
  params: {
    mode: "form",
    message,
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
});

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  acmeId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  conformanceId = (await findTenantBySlug(sql, "conformance"))?.id as string;
  conformanceToken = (await createApiKey(sql, { tenantId: conformanceId, name: "c" })).token;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("modern leg: caching hints, cursors, versions", () => {
  it("tools/list carries ttlMs and cacheScope private (caching.mdx MUST)", async () => {
    const listed = await modernClient(server.url, { token }).result("tools/list");
    expect(listed).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
  });

  it("tools/list refuses a cursor it never issued with -32602, in both eras", async () => {
    const modern = await modernClient(server.url, { token }).request("tools/list", { cursor: "bogus" });
    expect(modern.status).toBe(200);
    expect(modern.body.error).toMatchObject({ code: -32602, message: "Invalid cursor" });
    const legacy = await legacyRaw(server.url, token).request("tools/list", { cursor: "bogus" });
    expect(legacy.body.error).toMatchObject({ code: -32602, message: "Invalid cursor" });
  });

  it("-32022 lists the versions server/discover lists; the legacy ones are named in the message (review3 D5)", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "1900-01-01",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/list",
        params: {
          _meta: { "io.modelcontextprotocol/protocolVersion": "1900-01-01", "io.modelcontextprotocol/clientCapabilities": {} },
        },
      }),
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toEqual(["2026-07-28"]);
    expect(body.error.message).toContain("2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 through initialize");
  });
});

describe("modern leg: capability gating", () => {
  it("refuses a task whose workflow asks for input with -32021 {elicitation} when the request did not declare it", async () => {
    const full = modernClient(server.url, { token, capabilities: WITH_ELICITATION });
    const first = await full.result("tools/call", { name: "approve_expense", arguments: { expense_id: "G-1", amount: 1 } });
    await full.waitFor(first.taskId, ["input_required"]);
    const before = Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n);
    const refused = await modernClient(server.url, { token, capabilities: TASKS_ONLY }).request("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "G-2", amount: 1 },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { elicitation: {} } },
    });
    expect(Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n)).toBe(before);
    // A tasks/get that cannot be sent the elicitation requests (mrtr.mdx rule 7) is -32021 too, never
    // an input_required with an empty map (ext-tasks: inputRequests MUST list every outstanding request).
    const seen = await modernClient(server.url, { token, capabilities: TASKS_ONLY }).request("tasks/get", {
      taskId: first.taskId,
    });
    expect(seen.status).toBe(400);
    expect(seen.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it("lists only the capability actually missing for an MRTR tool (the extension was declared)", async () => {
    const refused = await modernClient(server.url, { token: conformanceToken, capabilities: TASKS_ONLY }).request("tools/call", {
      name: "test_tool_with_task",
      arguments: {},
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });
});

describe("modern leg: MRTR keeps partial answers across rounds", () => {
  it("asks each key once: the answers of earlier rounds travel in the requestState", async () => {
    await insertRouteRevision(sql, {
      tenantId: conformanceId,
      toolName: "two_questions",
      workflowName: "conformance-tool-with-task",
      workflowVersion: 1,
      inputSchema: { type: "object" },
      preflight: { user_name: NAME_REQUEST("Your name?"), team: NAME_REQUEST("Your team?") },
      taskSupport: "optional",
    });
    const client = modernClient(server.url, { token: conformanceToken, capabilities: WITH_ELICITATION });
    const round1 = await client.result("tools/call", { name: "two_questions", arguments: {} });
    expect(round1.resultType).toBe("input_required");
    expect(Object.keys(round1.inputRequests).sort()).toEqual(["team", "user_name"]);
    const round2 = await client.result("tools/call", {
      name: "two_questions",
      arguments: {},
      inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
      requestState: round1.requestState,
    });
    expect(round2.resultType).toBe("input_required");
    expect(Object.keys(round2.inputRequests)).toEqual(["team"]);
    // An answer that fails the request's schema is not accepted: the key is asked again.
    const retry = await client.result("tools/call", {
      name: "two_questions",
      arguments: {},
      inputResponses: { team: { action: "accept", content: { name: 42 } } },
      requestState: round2.requestState,
    });
    expect(Object.keys(retry.inputRequests)).toEqual(["team"]);
    const round3 = await client.result("tools/call", {
      name: "two_questions",
      arguments: {},
      inputResponses: { team: { action: "accept", content: { name: "Core" } } },
      requestState: retry.requestState,
    });
    expect(round3.resultType).toBe("task");
    const done = await client.waitFor(round3.taskId, ["completed", "failed"]);
    expect(done.result.content[0].text).toContain("Hello, Ada!");
    // Each state works once.
    const replay = await client.request("tools/call", {
      name: "two_questions",
      arguments: {},
      inputResponses: { team: { action: "accept", content: { name: "Core" } } },
      requestState: retry.requestState,
    });
    expect(replay.body.error.code).toBe(-32602);
  });
});

describe("one task binding for both eras: the credential", () => {
  it("key B of the same tenant cannot read, answer or cancel key A's legacy or modern task", async () => {
    const keyB = (await createApiKey(sql, { tenantId: acmeId, name: "b" })).token;
    const legacyTask = (
      await legacyRaw(server.url, token).request("tools/call", {
        name: "approve_expense",
        arguments: { expense_id: "B-1", amount: 9 },
        task: {},
      })
    ).body.result.task.taskId as string;
    const modernTask = (
      await modernClient(server.url, { token }).result("tools/call", {
        name: "approve_expense",
        arguments: { expense_id: "B-2", amount: 9 },
      })
    ).taskId as string;
    await waitForRunStatus(sql, legacyTask, "waiting_input");
    await waitForRunStatus(sql, modernTask, "waiting_input");
    const b = modernClient(server.url, { token: keyB });
    for (const taskId of [legacyTask, modernTask]) {
      const answer = { decision: { action: "accept", content: { decision: "approve" } } };
      for (const [method, extra] of [
        ["tasks/get", {}],
        ["tasks/update", { inputResponses: answer }],
        ["tasks/cancel", {}],
      ] as const) {
        const response = await b.request(method, { taskId, ...extra });
        expect(response.body.error, `${method} ${taskId}`).toMatchObject({ code: -32602, message: "Task not found" });
      }
      const listen = await b.stream("subscriptions/listen", { notifications: { taskIds: [taskId] } });
      const ack = await listen.next((e) => e.method === "notifications/subscriptions/acknowledged");
      expect(ack.params.notifications.taskIds).toEqual([]);
      await listen.done;
      // Key B's legacy view agrees.
      const legacy = await legacyRaw(server.url, keyB).request("tasks/get", { taskId });
      expect(legacy.body.error.code).toBe(-32602);
    }
    // Key A still reaches both through the modern leg.
    for (const taskId of [legacyTask, modernTask])
      expect((await modernClient(server.url, { token }).result("tasks/get", { taskId })).status).toBe("input_required");
  });
});

describe("answers are validated against the request's requestedSchema on every channel", () => {
  it("refuses a wrong enum value or a missing required field on tasks/update and changes nothing", async () => {
    const client = modernClient(server.url, { token });
    const created = await client.result("tools/call", { name: "approve_expense", arguments: { expense_id: "V-1", amount: 3 } });
    await client.waitFor(created.taskId, ["input_required"]);
    for (const content of [{ decision: "maybe" }, { comment: "no decision" }]) {
      const refused = await client.request("tasks/update", {
        taskId: created.taskId,
        inputResponses: { decision: { action: "accept", content } },
      });
      expect(refused.status).toBe(200);
      expect(refused.body.error.code).toBe(-32602);
      expect(refused.body.error.message).toMatch(/^Invalid answer to input request "decision": decision: /);
    }
    const still = await client.result("tasks/get", { taskId: created.taskId });
    expect(Object.keys(still.inputRequests)).toEqual(["decision"]);
    expect(
      await client.result("tasks/update", {
        taskId: created.taskId,
        inputResponses: { decision: { action: "accept", content: { decision: "approve" } } },
      }),
    ).toMatchObject({ resultType: "complete" });
    expect((await client.waitFor(created.taskId, ["completed"])).result.structuredContent.decision).toBe("approved");
  });

  it("ignores an invalid legacy elicitation response: the question stays open", async () => {
    const legacy = legacyRaw(server.url, token);
    const taskId = (
      await legacy.request("tools/call", { name: "approve_expense", arguments: { expense_id: "V-2", amount: 3 }, task: {} })
    ).body.result.task.taskId as string;
    await waitForRunStatus(sql, taskId, "waiting_input");
    const answer = await legacy.post({
      jsonrpc: "2.0",
      id: `rf-input:${taskId}:decision`,
      result: { action: "accept", content: { decision: "maybe", extra: { nested: true } } },
    });
    expect(answer.status).toBe(202);
    const pending = await sql`SELECT response FROM run_inputs WHERE run_id = ${taskId} AND key = 'decision'`;
    expect(pending[0]?.response).toBeNull();
  });
});

describe("transport and auth", () => {
  it("matches the Bearer scheme case-insensitively, and challenges missing credentials without an error code", async () => {
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const response = await legacyRaw(server.url, "unused").post(
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { version: "2025-11-25" },
      );
      expect(response.status).toBe(401); // the helper's own header carries "unused"
      const ok = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `${scheme} ${token}`,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect(ok.status, scheme).toBe(200);
    }
    const missing = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="runifold"');
  });

  it("sends WWW-Authenticate on the loopback test mode's 401s too", async () => {
    const loopback = await startMcpTestServer(sql, { insecureLoopbackTenant: "no-such-tenant", worker: false });
    try {
      const response = await fetch(loopback.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="runifold"/);
    } finally {
      await loopback.close();
    }
  });

  it("accepts only string and integer request IDs, and omits id (never null) when there is none", async () => {
    const raw = legacyRaw(server.url, token);
    const fractional = await raw.post({ jsonrpc: "2.0", id: 1.5, method: "ping" });
    expect(fractional.status).toBe(400);
    expect(fractional.body).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid JSON-RPC id" } });
    const parse = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: "{",
    });
    const body = await parse.json();
    expect(body.error.code).toBe(-32700);
    expect("id" in body).toBe(false);
  });

  it("answers an in-band parameter error (U+0000 in arguments) with HTTP 200", async () => {
    const response = await modernClient(server.url, { token }).request("tools/call", {
      name: "durable_report",
      arguments: { report_id: "a\u0000b" },
    });
    expect(response.status).toBe(200);
    expect(response.body.error.code).toBe(-32602);
  });

  it("requires the mcp scope on the modern leg as on the legacy one", async () => {
    const noMcp = (await createApiKey(sql, { tenantId: acmeId, name: "nomcp", scopes: ["tasks:read", "tasks:write"] })).token;
    const before = Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n);
    for (const [method, params] of [
      ["tools/list", {}],
      ["tools/call", { name: "durable_report", arguments: { report_id: "nomcp", settle_ms: 0 } }],
    ] as const) {
      const response = await modernClient(server.url, { token: noMcp, capabilities: {} }).request(method, params);
      expect(response.status, method).toBe(403);
      expect(response.headers.get("www-authenticate")).toContain('scope="mcp"');
    }
    expect(Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n)).toBe(before);
  });
});

describe("subscriptions/listen", () => {
  it("acks only what it honours and closes with serverInfo", async () => {
    const stream = await modernClient(server.url, { token }).stream("subscriptions/listen", { notifications: {} });
    const ack = await stream.next((e) => e.method === "notifications/subscriptions/acknowledged");
    expect(ack.params.notifications).toEqual({});
    const final = await stream.next((e) => e.result !== undefined);
    expect(final.result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "runifold" });
  });

  it("ends with an error, not a graceful result, when the key is revoked mid-stream", async () => {
    const key = await createApiKey(sql, { tenantId: acmeId, name: "revoked-mid-listen" });
    const client = modernClient(server.url, { token: key.token });
    const created = await client.result("tools/call", {
      name: "durable_report",
      arguments: { report_id: "rv", settle_ms: 600_000 },
    });
    const stream = await client.stream("subscriptions/listen", { notifications: { taskIds: [created.taskId] } });
    await stream.next((e) => e.method === "notifications/tasks");
    await revokeApiKey(sql, { keyId: key.keyId });
    const end = await stream.next((e) => e.error !== undefined || e.result !== undefined, 15_000);
    expect(end.error).toMatchObject({ code: -32600, message: "The credential is no longer valid" });
    await stream.done;
  });
});
