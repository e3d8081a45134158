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
import { definitionsFromStore, SEED_ACTOR, saveRoute } from "../../lib/admin";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw } from "../helpers/legacy-client";
import { legacyRequest, type McpHttpRequest, modernRequest } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { readSse } from "../helpers/sse";
import { waitForValue } from "../helpers/wait-for";

/**
 * Issue 29 item 4: a task's statusMessage says what it waits for in words a model can relay — the
 * same words in tasks/get (both eras), listen snapshots, legacy status notifications and handles.
 */
const nap = defineWorkflow({
  name: "test-nap",
  version: 1,
  input: z.object({}).passthrough(),
  asks: {},
  async run(ctx) {
    await ctx.sleep("nap", 600_000);
    return { content: [{ type: "text", text: "rested" }] };
  },
});
const windowOpen = defineWorkflow({
  name: "test-window",
  version: 1,
  input: z.object({}).passthrough(),
  asks: {},
  async run(ctx) {
    await ctx.waitForSignal("window-open");
    return { content: [{ type: "text", text: "opened" }] };
  },
});

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let worker: ReturnType<typeof createWorker>;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  await publishDefinitions(sql, [nap, windowOpen].map(describeDefinition), "test");
  const acme = await findTenantBySlug(sql, "tenant-acme");
  const ctx = { sql, actor: SEED_ACTOR, resolveDefinition: definitionsFromStore(sql) };
  await saveRoute(ctx, { tenantId: acme?.id as string, toolName: "nap", workflowName: "test-nap", workflowVersion: 1 });
  await saveRoute(ctx, { tenantId: acme?.id as string, toolName: "window", workflowName: "test-window", workflowVersion: 1 });
  server = await startMcpTestServer(sql);
  worker = createWorker({ sql, registry: createRegistry([nap, windowOpen]), logger: silentLogger, pollMs: 200 });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(500);
  await server?.close();
  await db?.drop();
});

/** The run's park as the engine recorded it, once it is parked. */
function parked(taskId: string, status: string) {
  return waitForValue(
    async () =>
      (
        await sql<
          { wait_detail: { timer: { wakeAt: string } } }[]
        >`SELECT wait_detail FROM runs WHERE id = ${taskId} AND status = ${status}`
      )[0],
    { describe: `${taskId} to be ${status}` },
  );
}

/** "14:00 UTC" (seconds when not :00), as statusMessageOf writes a time of today. */
function utc(iso: string): string {
  const time = iso.slice(11, 19);
  return `${time.endsWith(":00") ? time.slice(0, 5) : time} UTC`;
}

/** The first event of `method` on the SSE answer to `request`; the stream is then dropped. */
async function firstEvent(request: McpHttpRequest, method: string) {
  const abort = new AbortController();
  const reader = readSse(await fetch(server.url, { ...request, signal: abort.signal }));
  reader.done.catch(() => {});
  try {
    return await reader.next((event) => event.method === method);
  } finally {
    abort.abort();
  }
}

/** The statusMessage every view shows for a task: modern tasks/get, listen snapshot, legacy tasks/get and status notification, handle. */
async function everyView(taskId: string, legacy: boolean) {
  const modern = modernClient(server.url, { token });
  const views: Record<string, string> = {};
  if (!legacy) {
    views.tasksGet = (await modern.result("tasks/get", { taskId })).statusMessage;
    const listen = modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { token });
    views.listen = (await firstEvent(listen, "notifications/tasks")).params.statusMessage;
  } else {
    views.legacyGet = (await legacyRaw(server.url, token).request("tasks/get", { taskId })).body.result.statusMessage;
    const result = legacyRequest("tasks/result", { taskId }, { token });
    views.legacyNotification = (await firstEvent(result, "notifications/tasks/status")).params.statusMessage;
  }
  return views;
}

describe("statusMessage: what the task waits for", () => {
  it("an input request: the operator's tenant and the question's key, in every view of both eras", async () => {
    const modern = await modernClient(server.url, { token }).result("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "SM-1", amount: 1 },
    });
    await parked(modern.taskId, "waiting_input");
    const expected = "Waiting for an operator of tenant-acme to answer 'decision'";
    expect(Object.values(await everyView(modern.taskId, false))).toEqual([expected, expected]);
    const legacy = await legacyRaw(server.url, token).request("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "SM-2", amount: 1 },
      task: {},
    });
    const legacyId = legacy.body.result.task.taskId;
    await parked(legacyId, "waiting_input");
    expect(Object.values(await everyView(legacyId, true))).toEqual([expected, expected]);
    const handle = await modernClient(server.url, { token, capabilities: {} }).result("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "SM-3", amount: 1 },
    });
    expect(handle.structuredContent.statusMessage).toBe(expected);
  });

  it("a durable timer: until when, in UTC", async () => {
    const { taskId } = await modernClient(server.url, { token }).result("tools/call", { name: "nap", arguments: {} });
    const detail = await parked(taskId, "sleeping");
    const expected = `Sleeping until ${utc(new Date(detail.wait_detail.timer.wakeAt).toISOString())}`;
    expect(Object.values(await everyView(taskId, false))).toEqual([expected, expected]);
    const legacy = await legacyRaw(server.url, token).request("tools/call", { name: "nap", arguments: {}, task: {} });
    const legacyDetail = await parked(legacy.body.result.task.taskId, "sleeping");
    const legacyExpected = `Sleeping until ${utc(new Date(legacyDetail.wait_detail.timer.wakeAt).toISOString())}`;
    expect(Object.values(await everyView(legacy.body.result.task.taskId, true))).toEqual([legacyExpected, legacyExpected]);
    const status = await modernClient(server.url, { token, capabilities: {} }).result("tools/call", {
      name: "runifold_task_status",
      arguments: { taskId },
    });
    expect(status.structuredContent).toMatchObject({
      statusMessage: expected,
      waitingFor: { kind: "timer", until: new Date(detail.wait_detail.timer.wakeAt).toISOString() },
    });
  });

  it("a signal: its name", async () => {
    const { taskId } = await modernClient(server.url, { token }).result("tools/call", { name: "window", arguments: {} });
    await parked(taskId, "waiting_signal");
    expect(Object.values(await everyView(taskId, false))).toEqual([
      "Waiting for signal 'window-open'",
      "Waiting for signal 'window-open'",
    ]);
    const handle = await modernClient(server.url, { token, capabilities: {} }).result("tools/call", {
      name: "runifold_task_status",
      arguments: { taskId },
    });
    expect(handle.structuredContent).toMatchObject({
      statusMessage: "Waiting for signal 'window-open'",
      waitingFor: { kind: "signal", name: "window-open" },
    });
  });
});
