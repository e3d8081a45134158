import { McpTaskClient } from "@runifold/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { legacySession } from "../helpers/legacy-client";
import { legacyPost } from "../helpers/mcp-envelope";
import { readSse } from "../helpers/sse";
import { type ClientFixture, startClientFixture } from "./client-fixture";

/**
 * review3-mcp D1, D2, D10, D11 (issue 29 item 5): @runifold/client's lifecycle, against the real
 * server over real HTTP — one operation deadline, bounded subscriptions, loud undelivered answers,
 * and retries of the server's transient outage answer.
 */
let fixture: ClientFixture;

beforeAll(async () => {
  fixture = await startClientFixture();
});
afterAll(async () => {
  await fixture?.close();
});

const ERAS = ["modern", "legacy"] as const;
const connect = (era: (typeof ERAS)[number], options: Parameters<typeof McpTaskClient.connect>[1] = {}) =>
  McpTaskClient.connect(fixture.server.url, { key: fixture.acmeKey, era, ...options });

/** The method of a JSON-RPC request body, if it is one. */
function methodOf(init: RequestInit | undefined): string | undefined {
  try {
    return JSON.parse(String(init?.body)).method;
  } catch {
    return undefined;
  }
}

describe("D1: waitTask's deadline bounds the whole operation", () => {
  it.each(ERAS)("%s: returns timeout on time while the input handler is still deciding", async (era) => {
    const client = await connect(era);
    const started = await client.callToolOutcome("approve_expense", { expense_id: `D1-${era}`, amount: 1 });
    expect(started.kind).toBe("task");
    if (started.kind !== "task") return;
    // Without a handler the wait returns as soon as the task asks.
    expect((await client.waitTask(started.task.taskId, { deadlineMs: 20_000 })).kind).toBe("input_required");
    const t0 = Date.now();
    const outcome = await client.waitTask(started.task.taskId, { deadlineMs: 500, onInputRequest: () => new Promise(() => {}) });
    expect(outcome.kind).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(1_500);
  });

  it.each(ERAS)("%s: a first read that stalls does not outlive the deadline", async (era) => {
    let stall = false;
    const stalling: typeof fetch = async (input, init) => {
      if (stall && methodOf(init) === "tasks/get") await new Promise((resolve) => setTimeout(resolve, 3_000));
      return fetch(input, init);
    };
    const client = await connect(era, { fetch: stalling });
    const started = await client.callToolOutcome("durable_report", { report_id: `D1s-${era}`, settle_ms: 10_000 });
    if (started.kind !== "task") throw new Error(`expected a task, got ${started.kind}`);
    stall = true;
    const t0 = Date.now();
    const outcome = await client.waitTask(started.task.taskId, { deadlineMs: 500 });
    expect(outcome.kind).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(1_500);
  });
});

describe("D2: listenTasks splits its IDs into bounded subscriptions", () => {
  it("follows 101 tasks to their end without -32602", { timeout: 180_000 }, async () => {
    const client = await connect("modern");
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) {
      const outcome = await client.callToolOutcome("durable_report", { report_id: `D2-${i}`, sections: 1, settle_ms: 0 });
      if (outcome.kind !== "task") throw new Error(`expected a task, got ${outcome.kind}`);
      ids.push(outcome.task.taskId);
    }
    const terminal = new Set<string>();
    for await (const task of client.listenTasks(ids)) if (task.status === "completed") terminal.add(task.taskId);
    expect(terminal.size).toBe(101);
  });
});

describe("D10: legacy updateTask does not drop an answer silently", () => {
  it("answers a question another session's stream holds: the task moves on", async () => {
    const client = await connect("legacy");
    const started = await client.callToolOutcome("approve_expense", { expense_id: "D10", amount: 1 });
    if (started.kind !== "task") throw new Error(`expected a task, got ${started.kind}`);
    const taskId = started.task.taskId;
    // Another session's tasks/result stream claims the question and holds it.
    const other = await legacySession(fixture.server.url, fixture.acmeKey, { elicitation: {} });
    const abort = new AbortController();
    const holder = readSse(
      await fetch(fixture.server.url, {
        ...legacyPost(
          { jsonrpc: "2.0", id: "hold", method: "tasks/result", params: { taskId } },
          {
            token: fixture.acmeKey,
            headers: other,
          },
        ),
        signal: abort.signal,
      }),
    );
    holder.done.catch(() => {});
    await holder.next((event) => event.method === "elicitation/create", 20_000);
    try {
      await client.updateTask(taskId, { decision: { action: "accept", content: { decision: "approve" } } });
      const after = await client.getTask(taskId);
      expect(after.status).not.toBe("input_required");
      const outcome = await client.waitTask(taskId, { deadlineMs: 20_000 });
      expect(outcome).toMatchObject({ kind: "completed", result: { structuredContent: { decision: "approved" } } });
    } finally {
      abort.abort();
    }
  });

  it("rejects when the answer does not fit the question (nothing accepted), instead of returning as if sent", async () => {
    const client = await connect("legacy");
    const started = await client.callToolOutcome("approve_expense", { expense_id: "D10b", amount: 1 });
    if (started.kind !== "task") throw new Error(`expected a task, got ${started.kind}`);
    await client.waitTask(started.task.taskId, { deadlineMs: 20_000 });
    await expect(
      client.updateTask(started.task.taskId, { decision: { action: "accept", content: { decision: "maybe" } } }),
    ).rejects.toThrow(/decision/);
  });
});

describe("D11: the server's transient outage answer (503, -32603) is retried", () => {
  it.each(ERAS)("%s: waitTask and listenTasks ride out a 503", async (era) => {
    let reads = 0;
    let failNext = false;
    const flaky: typeof fetch = async (input, init) => {
      const method = methodOf(init);
      if (method === "tasks/get" || method === "subscriptions/listen") {
        reads += 1;
        if (failNext || reads === 2) {
          failNext = false;
          const body = JSON.stringify({
            jsonrpc: "2.0",
            id: JSON.parse(String(init?.body)).id,
            error: { code: -32603, message: "Internal error" },
          });
          return new Response(body, { status: 503, headers: { "content-type": "application/json" } });
        }
      }
      return fetch(input, init);
    };
    const client = await connect(era, { fetch: flaky });
    const started = await client.callToolOutcome("durable_report", { report_id: `D11-${era}`, settle_ms: 300 });
    if (started.kind !== "task") throw new Error(`expected a task, got ${started.kind}`);
    const outcome = await client.waitTask(started.task.taskId, { deadlineMs: 30_000 });
    expect(outcome.kind).toBe("completed");
    const again = await client.callToolOutcome("durable_report", { report_id: `D11l-${era}`, settle_ms: 300 });
    if (again.kind !== "task") throw new Error(`expected a task, got ${again.kind}`);
    failNext = true;
    const seen: string[] = [];
    for await (const task of client.listenTasks([again.task.taskId])) seen.push(task.status);
    expect(seen.at(-1)).toBe("completed");
  });
});
