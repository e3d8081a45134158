import { McpTaskClient, type TaskView } from "@runifold/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wakeSleepingRun } from "../helpers/runs";
import { type ClientFixture, startClientFixture } from "./client-fixture";

let fx: ClientFixture;

beforeAll(async () => {
  fx = await startClientFixture();
});
afterAll(async () => {
  await fx.close();
});

const connect = (key: string, options: { tasks?: boolean } = {}) =>
  McpTaskClient.connect(fx.server.url, { key, era: "legacy", ...options });

/** A fetch that makes the server look legacy-only: `server/discover` gets a plain 404 page. */
const legacyOnlyFetch: typeof fetch = async (input, init) => {
  const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : {};
  if (body.method === "server/discover")
    return new Response("<html>Not Found</html>", { status: 404, headers: { "content-type": "text/html" } });
  return fetch(input, init);
};

async function startTask(client: McpTaskClient, tool: string, args: Record<string, unknown>): Promise<TaskView> {
  const outcome = await client.callToolOutcome(tool, args);
  if (outcome.kind !== "task") throw new Error(`expected a task from ${tool}, got ${outcome.kind}`);
  return outcome.task;
}

describe("McpTaskClient against the legacy era (2025-11-25 tasks)", () => {
  it("falls back to initialize when the peer does not speak 2026-07-28, and reads capabilities.tasks", async () => {
    const client = await McpTaskClient.connect(fx.server.url, { key: fx.acmeKey, fetch: legacyOnlyFetch });
    expect({ era: client.era, protocolVersion: client.protocolVersion, tasksAvailable: client.tasksAvailable }).toEqual({
      era: "legacy",
      protocolVersion: "2025-11-25",
      tasksAvailable: true,
    });
  });

  it("gets a complete outcome for greet (a forbidden tool is never augmented)", async () => {
    const client = await connect(fx.conformanceKey);
    expect(await client.callToolOutcome("greet", { name: "Ada" })).toMatchObject({
      kind: "complete",
      result: { content: [{ type: "text", text: "Hello, Ada!" }] },
    });
  });

  it("gets a task outcome for durable_report and waits for it to complete", async () => {
    const client = await connect(fx.acmeKey);
    const task = await startTask(client, "durable_report", { report_id: "legacy-q3", settle_ms: 200 });
    expect(task).toMatchObject({ era: "legacy", status: "working", ttlMs: expect.any(Number) });
    const done = await client.waitTask(task, { deadlineMs: 20_000 });
    expect(done).toMatchObject({ kind: "completed", isError: false, result: { structuredContent: { reportId: "legacy-q3" } } });
  });

  it("answers approve_expense's elicitation through onInputRequest; a rejection is completed with isError", async () => {
    const client = await connect(fx.acmeKey);
    for (const [decision, recorded, isError] of [
      ["approve", "approved", false],
      ["reject", "rejected", true],
    ] as const) {
      const task = await startTask(client, "approve_expense", { expense_id: `L-${decision}`, amount: 9 });
      const asked: string[] = [];
      const done = await client.waitTask(task, {
        deadlineMs: 20_000,
        onInputRequest: (key, request) => {
          asked.push(`${key}:${request.method}`);
          return { action: "accept", content: { decision } };
        },
      });
      expect(asked).toEqual(["decision:elicitation/create"]);
      expect(done).toMatchObject({ kind: "completed", isError, result: { structuredContent: { decision: recorded } } });
      if (isError) expect(done.task.wireStatus).toBe("failed");
    }
  });

  it("returns input_required with the pending questions, and finishes after updateTask", async () => {
    const client = await connect(fx.acmeKey);
    const task = await startTask(client, "approve_expense", { expense_id: "L-manual", amount: 3 });
    const waiting = await client.waitTask(task, { deadlineMs: 20_000 });
    if (waiting.kind !== "input_required") throw new Error(`expected input_required, got ${waiting.kind}`);
    expect(Object.keys(waiting.inputRequests)).toEqual(["decision"]);
    expect(waiting.inputRequests.decision?.params).toMatchObject({
      requestedSchema: { properties: { decision: expect.any(Object) } },
    });
    await client.updateTask(task.taskId, { decision: { action: "accept", content: { decision: "approve" } } });
    expect(await client.waitTask(task.taskId, { deadlineMs: 20_000 })).toMatchObject({ kind: "completed", isError: false });
  });

  it("cancels a task; cancelling it again is a quiet no-op", async () => {
    const client = await connect(fx.acmeKey);
    const task = await startTask(client, "durable_report", { report_id: "legacy-cancel", settle_ms: 600_000 });
    await client.cancelTask(task.taskId);
    expect(await client.waitTask(task.taskId, { deadlineMs: 20_000 })).toMatchObject({ kind: "cancelled" });
    await client.cancelTask(task.taskId);
  });

  it("types a protocol failure as failed with the task's JSON-RPC error", async () => {
    const client = await connect(fx.conformanceKey);
    const task = await startTask(client, "protocol_error_job", {});
    expect(await client.waitTask(task, { deadlineMs: 20_000 })).toMatchObject({ kind: "failed", error: { code: -32603 } });
  });

  it("listens by polling: snapshot, changes, terminal, then the iterator ends", async () => {
    const client = await connect(fx.acmeKey);
    const task = await startTask(client, "durable_report", { report_id: "legacy-listen", settle_ms: 600_000 });
    const seen: TaskView[] = [];
    for await (const snapshot of client.listenTasks([task.taskId])) {
      seen.push(snapshot);
      // The first snapshot is of a task still asleep; only then does its sleep end.
      if (seen.length === 1) await wakeSleepingRun(fx.db.sql, task.taskId);
    }
    expect(seen[0]?.status).toBe("working");
    expect(seen.at(-1)).toMatchObject({ status: "completed", result: { structuredContent: { reportId: "legacy-listen" } } });
    for (let i = 1; i < seen.length; i++) expect(JSON.stringify(seen[i])).not.toBe(JSON.stringify(seen[i - 1]));
  });

  it("resumes from a persisted task ID after the server restarts", async () => {
    const first = await connect(fx.acmeKey);
    const { taskId } = await startTask(first, "durable_report", { report_id: "legacy-resume", settle_ms: 1_500 });
    await fx.restartServer();
    const second = await connect(fx.acmeKey);
    const current = await second.getTask(taskId);
    expect(["working", "completed"]).toContain(current.status);
    expect(await second.waitTask(current, { deadlineMs: 20_000 })).toMatchObject({ kind: "completed" });
  });

  it("ends a wait at its deadline without cancelling the task", async () => {
    const client = await connect(fx.acmeKey);
    // The task sleeps for ten minutes: only the deadline can end this wait.
    const task = await startTask(client, "durable_report", { report_id: "legacy-deadline", settle_ms: 600_000 });
    expect((await client.waitTask(task, { deadlineMs: 300 })).kind).toBe("timeout");
    expect((await client.getTask(task.taskId)).status).toBe("working");
    await client.cancelTask(task.taskId);
  });

  it("takes the ordinary path when tasks are not wanted", async () => {
    const client = await connect(fx.conformanceKey, { tasks: false });
    expect(client.tasksAvailable).toBe(false);
    expect(await client.callToolOutcome("slow_compute", { seconds: 0.2, label: "plain" })).toMatchObject({ kind: "complete" });
  });
});
