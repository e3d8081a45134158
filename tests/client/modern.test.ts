import { isTaskNotFound, McpAuthError, McpProtocolError, McpTaskClient, type TaskView } from "@runifold/client";
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

const connect = (key: string, options: { tasks?: boolean } = {}) => McpTaskClient.connect(fx.server.url, { key, ...options });

describe("McpTaskClient against the modern era (2026-07-28 + tasks extension)", () => {
  it("negotiates the modern era with tasks", async () => {
    const client = await connect(fx.acmeKey);
    expect({ era: client.era, protocolVersion: client.protocolVersion, tasksAvailable: client.tasksAvailable }).toEqual({
      era: "modern",
      protocolVersion: "2026-07-28",
      tasksAvailable: true,
    });
  });

  it("gets a complete outcome for greet", async () => {
    const client = await connect(fx.conformanceKey);
    const outcome = await client.callToolOutcome("greet", { name: "Ada" });
    expect(outcome).toEqual({
      kind: "complete",
      result: expect.objectContaining({ content: [{ type: "text", text: "Hello, Ada!" }] }),
    });
  });

  it("gets a task outcome for durable_report and waits for it to complete", async () => {
    const client = await connect(fx.acmeKey);
    const outcome = await client.callToolOutcome("durable_report", { report_id: "q3", settle_ms: 200 });
    if (outcome.kind !== "task") throw new Error(`expected a task, got ${outcome.kind}`);
    expect(outcome.task).toMatchObject({
      status: "working",
      era: "modern",
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number),
    });
    const updates: TaskView[] = [];
    const done = await client.waitTask(outcome.task, { deadlineMs: 20_000, onUpdate: (task) => updates.push(task) });
    expect(done).toMatchObject({ kind: "completed", isError: false, result: { structuredContent: { reportId: "q3" } } });
    expect(updates[0]?.status).toBe("working");
    expect(updates.at(-1)?.status).toBe("completed");
  });

  it("answers approve_expense through onInputRequest; a rejection completes with isError", async () => {
    const client = await connect(fx.acmeKey);
    const asked: string[] = [];
    for (const [decision, recorded, isError] of [
      ["approve", "approved", false],
      ["reject", "rejected", true],
    ] as const) {
      const outcome = await client.callToolOutcome("approve_expense", { expense_id: `E-${decision}`, amount: 12 });
      if (outcome.kind !== "task") throw new Error("expected a task");
      const done = await client.waitTask(outcome.task, {
        deadlineMs: 20_000,
        onInputRequest: (key, request) => {
          asked.push(`${key}:${request.method}`);
          return { action: "accept", content: { decision, comment: "via client" } };
        },
      });
      expect(done).toMatchObject({ kind: "completed", isError, result: { structuredContent: { decision: recorded } } });
    }
    expect(asked).toEqual(["decision:elicitation/create", "decision:elicitation/create"]);
  });

  it("returns input_required without a handler, and finishes after updateTask", async () => {
    const client = await connect(fx.acmeKey);
    const outcome = await client.callToolOutcome("approve_expense", { expense_id: "E-manual", amount: 5 });
    if (outcome.kind !== "task") throw new Error("expected a task");
    const waiting = await client.waitTask(outcome.task, { deadlineMs: 20_000 });
    expect(waiting.kind).toBe("input_required");
    if (waiting.kind !== "input_required") return;
    expect(Object.keys(waiting.inputRequests)).toEqual(["decision"]);
    await client.updateTask(outcome.task.taskId, { decision: { action: "accept", content: { decision: "approve" } } });
    expect(await client.waitTask(outcome.task.taskId, { deadlineMs: 20_000 })).toMatchObject({
      kind: "completed",
      isError: false,
    });
  });

  it("cancels a task", async () => {
    const client = await connect(fx.acmeKey);
    const outcome = await client.callToolOutcome("durable_report", { report_id: "cancel-me", settle_ms: 600_000 });
    if (outcome.kind !== "task") throw new Error("expected a task");
    await client.cancelTask(outcome.task.taskId);
    expect(await client.waitTask(outcome.task.taskId, { deadlineMs: 20_000 })).toMatchObject({
      kind: "cancelled",
      task: { status: "cancelled" },
    });
    await client.cancelTask(outcome.task.taskId); // terminal: a quiet no-op
  });

  it("types a protocol failure as failed with {code, message}", async () => {
    const client = await connect(fx.conformanceKey);
    const outcome = await client.callToolOutcome("protocol_error_job", {});
    if (outcome.kind !== "task") throw new Error("expected a task");
    const done = await client.waitTask(outcome.task, { deadlineMs: 20_000 });
    expect(done).toMatchObject({ kind: "failed", error: { code: -32603, message: expect.any(String) } });
  });

  it("listens: snapshot, changes, terminal, then the iterator ends", async () => {
    const client = await connect(fx.acmeKey);
    const outcome = await client.callToolOutcome("durable_report", { report_id: "listen", settle_ms: 600_000 });
    if (outcome.kind !== "task") throw new Error("expected a task");
    const seen: TaskView[] = [];
    for await (const snapshot of client.listenTasks([outcome.task.taskId])) {
      seen.push(snapshot);
      // The first snapshot is of a task still asleep; only then does its sleep end.
      if (seen.length === 1) await wakeSleepingRun(fx.db.sql, outcome.task.taskId);
    }
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]?.status).toBe("working");
    expect(seen.at(-1)).toMatchObject({ status: "completed", result: { structuredContent: { reportId: "listen" } } });
    for (let i = 1; i < seen.length; i++) expect(JSON.stringify(seen[i])).not.toBe(JSON.stringify(seen[i - 1]));
  });

  it("refuses to listen to an unknown task ID", async () => {
    const client = await connect(fx.acmeKey);
    const iterator = client.listenTasks(["00000000-0000-4000-8000-00000000dead"]);
    await expect(iterator.next()).rejects.toMatchObject({ code: -32602 });
  });

  it("resumes from a persisted task ID after the server restarts", async () => {
    const first = await connect(fx.acmeKey);
    const outcome = await first.callToolOutcome("durable_report", { report_id: "resume", settle_ms: 1_500 });
    if (outcome.kind !== "task") throw new Error("expected a task");
    const persisted = JSON.stringify({ taskId: outcome.task.taskId });
    await fx.restartServer();
    const second = await connect(fx.acmeKey);
    const { taskId } = JSON.parse(persisted) as { taskId: string };
    const current = await second.getTask(taskId);
    expect(["working", "completed"]).toContain(current.status);
    expect(await second.waitTask(current, { deadlineMs: 20_000 })).toMatchObject({
      kind: "completed",
      result: { structuredContent: { reportId: "resume" } },
    });
  });

  it("ends a wait at its deadline without cancelling the task", async () => {
    const client = await connect(fx.acmeKey);
    // The task sleeps for ten minutes: only the deadline can end these waits.
    const outcome = await client.callToolOutcome("durable_report", { report_id: "deadline", settle_ms: 600_000 });
    if (outcome.kind !== "task") throw new Error("expected a task");
    const waited = await client.waitTask(outcome.task, { deadlineMs: 300 });
    expect(waited.kind).toBe("timeout");
    expect((await client.getTask(outcome.task.taskId)).status).toBe("working");
    // Aborted while it waits: once it has read the task (its first update), not after a fixed 200 ms
    // that a loaded machine may spend still inside that first read.
    const controller = new AbortController();
    const aborted = await client.waitTask(outcome.task.taskId, { signal: controller.signal, onUpdate: () => controller.abort() });
    expect(aborted.kind).toBe("aborted");
    expect((await client.getTask(outcome.task.taskId)).status).toBe("working");
    await client.cancelTask(outcome.task.taskId);
  });

  it("answers MRTR rounds through onInputRequest, or returns them to the caller", async () => {
    const client = await connect(fx.conformanceKey);
    const handled = await client.callToolOutcome(
      "test_tool_with_task",
      {},
      { onInputRequest: () => ({ action: "accept", content: { name: "Grace" } }) },
    );
    if (handled.kind !== "task") throw new Error(`expected a task, got ${handled.kind}`);
    expect(await client.waitTask(handled.task, { deadlineMs: 20_000 })).toMatchObject({
      kind: "completed",
      result: { content: [{ text: expect.stringContaining("Grace") }] },
    });

    const round = await client.callToolOutcome("test_tool_with_task", {});
    if (round.kind !== "input_required") throw new Error("expected an MRTR round");
    expect(Object.keys(round.inputRequests)).toEqual(["user_name"]);
    const retried = await client.callToolOutcome(
      "test_tool_with_task",
      {},
      {
        inputResponses: { user_name: { action: "accept", content: { name: "Linus" } } },
        requestState: round.requestState,
      },
    );
    expect(retried.kind).toBe("task");
  });

  it("takes the ordinary path when tasks are not wanted", async () => {
    const client = await connect(fx.conformanceKey, { tasks: false });
    expect(client.tasksAvailable).toBe(false);
    const slow = await client.callToolOutcome("slow_compute", { seconds: 0.2, label: "plain" });
    expect(slow).toMatchObject({ kind: "complete", result: { content: [{ text: expect.stringContaining("plain") }] } });
    await expect(client.callToolOutcome("failing_job", {})).rejects.toMatchObject({ code: -32021, kind: "rpc" });
  });

  it("types unknown tasks, bad keys and unreachable servers", async () => {
    const client = await connect(fx.acmeKey);
    const unknown = await client.getTask("00000000-0000-4000-8000-00000000beef").catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(McpProtocolError);
    expect(isTaskNotFound(unknown)).toBe(true);
    await expect(connect("rf_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).rejects.toBeInstanceOf(McpAuthError);
    await expect(McpTaskClient.connect("http://127.0.0.1:9/api/mcp", { key: fx.acmeKey })).rejects.toMatchObject({
      kind: "transport",
    });
  });
});
