import {
  createRegistry,
  createWorker,
  defineWorkflow,
  describeDefinition,
  publishDefinitions,
  silentLogger,
} from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { findTenantBySlug } from "../../db/queries/tenants";
import { definitionsFromStore, listPublishedDefinitions, SEED_ACTOR, saveRoute, setTenantHandleTools } from "../../lib/admin";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { TASKS_ONLY } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitFor } from "../helpers/wait-for";

/**
 * review3-mcp D4 and D8 (issue 29 item 3): -32021 for questions comes from what a definition
 * DECLARES it may ask (`defineWorkflow({ asks })`, published with it), so the first call on a fresh
 * server is decided exactly as the thousandth on a busy one; never a task in input_required with an
 * empty inputRequests map.
 */

// Ask nothing but declare nothing either: it may ask anything, so it is gated like one that asks.
const undeclared = defineWorkflow({
  name: "test-undeclared",
  version: 1,
  input: z.object({}).passthrough(),
  async run() {
    return { content: [{ type: "text", text: "quiet" }] };
  },
});
// Declares it asks, but its first runs never do (a rarely taken branch): the gate must not wait to see it.
const asksLater = defineWorkflow({
  name: "test-asks-later",
  version: 1,
  input: z.object({ ask: z.boolean().default(false) }),
  asks: { input: true },
  async run(ctx, input) {
    if (input.ask) {
      await ctx.requestInput("ok", {
        method: "elicitation/create",
        params: { message: "OK?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
      });
    }
    return { content: [{ type: "text", text: "done" }] };
  },
});

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let worker: ReturnType<typeof createWorker>;
let token: string;
let quietToken: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  await publishDefinitions(sql, [undeclared, asksLater].map(describeDefinition), "test");
  const acme = await findTenantBySlug(sql, "tenant-acme");
  const ctx = { sql, actor: SEED_ACTOR, resolveDefinition: definitionsFromStore(sql) };
  for (const [tool, workflow] of [
    ["undeclared", undeclared],
    ["asks_later", asksLater],
  ] as const) {
    await saveRoute(ctx, { tenantId: acme?.id as string, toolName: tool, workflowName: workflow.name, workflowVersion: 1 });
  }
  const conformance = await findTenantBySlug(sql, "conformance");
  await setTenantHandleTools(ctx, { tenantId: conformance?.id as string, on: false });
  quietToken = (await createApiKey(sql, { tenantId: conformance?.id as string, name: "quiet" })).token;
  server = await startMcpTestServer(sql);
  worker = createWorker({ sql, registry: createRegistry([undeclared, asksLater]), logger: silentLogger, pollMs: 200 });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(500);
  await server?.close();
  await db?.drop();
});

const runCount = async () => Number((await sql`SELECT count(*)::int AS n FROM runs`)[0]?.n);

describe("capability gating from declarations", () => {
  it("refuses the very first task call of a workflow that declares questions, on a fresh server, and starts nothing", async () => {
    const before = await runCount();
    for (let i = 0; i < 3; i++) {
      const answer = await modernClient(server.url, { token, capabilities: TASKS_ONLY }).request("tools/call", {
        name: "approve_expense",
        arguments: { expense_id: `CG-${i}`, amount: 1 },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    }
    // A workflow that declares questions its first runs never ask is refused all the same.
    const later = await modernClient(server.url, { token, capabilities: TASKS_ONLY }).request("tools/call", {
      name: "asks_later",
      arguments: {},
    });
    expect(later.body.error?.code).toBe(-32021);
    expect(await runCount()).toBe(before);
  });

  it("names form mode for a client that declared URL-mode elicitation only", async () => {
    const answer = await modernClient(server.url, { token, capabilities: { ...TASKS_ONLY, elicitation: { url: {} } } }).request(
      "tools/call",
      { name: "approve_expense", arguments: { expense_id: "CG-url", amount: 1 } },
    );
    expect(answer.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { form: {} } } } });
  });

  it("lets a workflow that declares it never asks run as a task; an undeclared one may ask anything and is refused", async () => {
    const client = modernClient(server.url, { token, capabilities: TASKS_ONLY });
    const report = await client.result("tools/call", { name: "durable_report", arguments: { report_id: "CG", settle_ms: 0 } });
    expect(["task", "complete"]).toContain(report.resultType);
    const quiet = await client.request("tools/call", { name: "undeclared", arguments: {} });
    expect(quiet.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it("D8: a 2026-07-28 client without tasks or elicitation gets -32021 where the tenant turned handles off, a handle where it did not", async () => {
    const off = await modernClient(server.url, { token: quietToken, capabilities: {} }).request("tools/call", {
      name: "confirm_delete",
      arguments: { filename: "a.txt" },
    });
    expect(off.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    const slow = await modernClient(server.url, { token: quietToken, capabilities: {} }).result("tools/call", {
      name: "greet",
      arguments: { name: "x" },
    });
    expect(slow.content[0].text).toBe("Hello, x!");
    const on = await modernClient(server.url, { token, capabilities: {} }).result("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "CG-on", amount: 1 },
    });
    expect(on).toMatchObject({ isError: false, structuredContent: { status: "input_required" } });
  });

  it("a tasks/get that could be sent none of a waiting task's questions is -32021, never an empty inputRequests", async () => {
    const creator = modernClient(server.url, { token });
    const task = await creator.result("tools/call", { name: "approve_expense", arguments: { expense_id: "CG-get", amount: 1 } });
    await waitFor(
      () => creator.result("tasks/get", { taskId: task.taskId }),
      (t) => t.status === "input_required",
      { describe: "the task to ask", timeoutMs: 20_000 },
    );
    const blind = await modernClient(server.url, { token, capabilities: TASKS_ONLY }).request("tasks/get", {
      taskId: task.taskId,
    });
    expect(blind.status).toBe(400);
    expect(blind.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it("publishes what each definition declares", async () => {
    const listed = await listPublishedDefinitions({ sql });
    const asks = Object.fromEntries(listed.map((d) => [d.key, d.asks]));
    expect(asks).toMatchObject({
      "approve-expense@1": { input: true, approval: false },
      "generate-report@1": { input: false, approval: false },
      "conformance-tool-with-task@1": { input: true, approval: false },
      "test-undeclared@1": null,
    });
  });
});
