import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createWorker, silentLogger, type Worker } from "@runifold/sdk";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shippedWorkflows } from "../../workflows/demo";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { connectLegacyClient } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { readyUrl, spawnTs, waitForExit } from "../helpers/processes";

/**
 * The legacy leg across web instances: two servers behind a round-robin, a web process restart,
 * and tasks crossing protocol eras. Workers are separate from the web servers, as in production.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let token: string;
let worker: Worker;
const pools: postgres.Sql[] = [];
const RELATED = "io.modelcontextprotocol/related-task";

/** Each web instance and the worker get their own pool (their own LISTEN connection), as separate processes would. */
function pool(): postgres.Sql {
  const sql = postgres(db.url, { max: 5, onnotice: () => {} });
  pools.push(sql);
  return sql;
}

beforeAll(async () => {
  db = await freshDatabase();
  token = (await seedDemo(db.sql)).apiKey as string;
  worker = createWorker({ sql: pool(), registry: shippedWorkflows, logger: silentLogger, pollMs: 200, leaseMs: 5_000 });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(500);
  for (const sql of pools) await sql.end({ timeout: 2 });
  await db?.drop();
});

describe("legacy leg across instances", () => {
  // Covers L11 and L15 across instances: the elicitation goes out on one instance's tasks/result stream,
  // the client's answer lands on the other instance, and the blocked tasks/result returns the final result.
  it("completes approve_expense with two web servers behind a round-robin", async () => {
    const a = await startMcpTestServer(pool(), { worker: false });
    const b = await startMcpTestServer(pool(), { worker: false });
    const { client, log, close } = await connectLegacyClient([a.url, b.url], token, {
      onElicit: () => ({ action: "accept", content: { decision: "reject", comment: "over budget" } }),
    });
    try {
      let result: Record<string, unknown> | undefined;
      let taskId = "";
      for await (const message of client.experimental.tasks.callToolStream(
        { name: "approve_expense", arguments: { expense_id: "RR-1", amount: 990 } },
        CallToolResultSchema,
        { task: {} },
      )) {
        if (message.type === "taskCreated") taskId = message.task.taskId;
        if (message.type === "result") result = message.result;
        if (message.type === "error") throw message.error;
      }
      // A rejection is isError: the task is `failed` in this era, and tasks/result still returns the tool result (L13).
      expect(result).toMatchObject({
        isError: true,
        structuredContent: { decision: "rejected", comment: "over budget" },
        _meta: { [RELATED]: { taskId } },
      });
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe("failed");
      const streamed = log.find((entry) => (entry.message as { method?: string })?.method === "tasks/result");
      const answer = log.find((entry) => String((entry.message as { id?: unknown })?.id).startsWith("rf-ask:"));
      expect(streamed && answer).toBeTruthy();
      expect(answer?.target).not.toBe(streamed?.target);
      expect(new Set(log.map((entry) => entry.target)).size).toBe(2);
    } finally {
      await close();
      await a.close();
      await b.close();
    }
  });

  // Covers L9 and L10 after a restart: nothing about a task lives in a web process.
  it("serves getTask and getTaskResult from a new client after the web process is restarted", async () => {
    const first = spawnTs("tests/helpers/mcp-server-process.ts", { DATABASE_URL: db.url });
    const firstUrl = await readyUrl(first);
    const creator = await connectLegacyClient(firstUrl, token);
    const created = await creator.client.request(
      {
        method: "tools/call",
        params: { name: "durable_report", arguments: { report_id: "restart", settle_ms: 1_500 }, task: { ttl: 300_000 } },
      },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    await creator.close();
    first.kill("SIGKILL");
    await waitForExit(first);

    const second = spawnTs("tests/helpers/mcp-server-process.ts", { DATABASE_URL: db.url });
    try {
      const secondUrl = await readyUrl(second);
      const fresh = await connectLegacyClient(secondUrl, token, { name: "after-restart" });
      try {
        const task = await fresh.client.experimental.tasks.getTask(taskId);
        expect(task).toMatchObject({ taskId, ttl: 300_000 });
        const result = await fresh.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
        expect(result).toMatchObject({ structuredContent: { reportId: "restart" }, _meta: { [RELATED]: { taskId } } });
        expect((await fresh.client.experimental.tasks.getTask(taskId)).status).toBe("completed");
      } finally {
        await fresh.close();
      }
    } finally {
      second.kill("SIGTERM");
      await waitForExit(second);
    }
  });

  // Covers L7 and L9 for both shapes: a task is readable in the other era with that era's fields.
  it("reads a modern-era task through legacy tasks/get, and a legacy task through modern tasks/get", async () => {
    const server = await startMcpTestServer(pool(), { worker: false });
    const legacy = await connectLegacyClient(server.url, token);
    try {
      const modern = modernClient(server.url, { token });
      const modernTask = await modern.result("tools/call", {
        name: "durable_report",
        arguments: { report_id: "cross-m", settle_ms: 0 },
      });
      expect(modernTask).toMatchObject({ resultType: "task", ttlMs: expect.any(Number) });
      const seenLegacy = await legacy.client.experimental.tasks.getTask(modernTask.taskId);
      expect(seenLegacy).toMatchObject({
        taskId: modernTask.taskId,
        ttl: modernTask.ttlMs,
        pollInterval: modernTask.pollIntervalMs,
      });
      expect(seenLegacy).not.toHaveProperty("ttlMs");
      expect(seenLegacy).not.toHaveProperty("resultType");
      const legacyResult = await legacy.client.experimental.tasks.getTaskResult(modernTask.taskId, CallToolResultSchema);
      expect(legacyResult.structuredContent).toMatchObject({ reportId: "cross-m" });
      expect((await legacy.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(modernTask.taskId);

      const created = await legacy.client.request(
        { method: "tools/call", params: { name: "durable_report", arguments: { report_id: "cross-l", settle_ms: 0 }, task: {} } },
        CreateTaskResultSchema,
      );
      const legacyId = created.task.taskId;
      await legacy.client.experimental.tasks.getTaskResult(legacyId, CallToolResultSchema);
      const seenModern = await modern.result("tasks/get", { taskId: legacyId });
      expect(seenModern).toMatchObject({
        resultType: "complete",
        taskId: legacyId,
        status: "completed",
        ttlMs: created.task.ttl,
        result: { structuredContent: { reportId: "cross-l" } },
      });
      expect(seenModern).not.toHaveProperty("ttl");
    } finally {
      await legacy.close();
      await server.close();
    }
  });
});
