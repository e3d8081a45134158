import { McpTaskClient, pollDelay, type TaskView } from "@runifold/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientFixture, startClientFixture } from "./client-fixture";

describe("pollDelay", () => {
  const policy = { minMs: 100, maxMs: 5_000, defaultMs: 1_000 };
  const now = Date.parse("2026-01-01T00:00:10Z");
  const task = (fields: Partial<TaskView>): TaskView => ({
    taskId: "t",
    status: "working",
    createdAt: "2026-01-01T00:00:00Z",
    lastUpdatedAt: "2026-01-01T00:00:00Z",
    ttlMs: null,
    era: "modern",
    wireStatus: "working",
    ...fields,
  });

  it("follows the server's interval within the client's bounds, the deadline and the handle's lifetime", () => {
    expect(pollDelay(task({ pollIntervalMs: 2_000 }), policy, undefined, now)).toBe(2_000);
    expect(pollDelay(task({}), policy, undefined, now)).toBe(1_000);
    expect(pollDelay(task({ pollIntervalMs: 10 }), policy, undefined, now)).toBe(100);
    expect(pollDelay(task({ pollIntervalMs: 60_000 }), policy, undefined, now)).toBe(5_000);
    expect(pollDelay(task({ pollIntervalMs: 2_000 }), policy, now + 300, now)).toBe(300);
    expect(pollDelay(task({ pollIntervalMs: 2_000, ttlMs: 10_500 }), policy, undefined, now)).toBe(500);
  });
});

let fx: ClientFixture;
beforeAll(async () => {
  fx = await startClientFixture();
});
afterAll(async () => {
  await fx.close();
});

/** A fetch whose first subscriptions/listen stream is cut right after its first chunk (a dropped connection). */
function droppingFetch() {
  let listens = 0;
  const wrapped: typeof fetch = async (input, init) => {
    const method = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }).method : undefined;
    const response = await fetch(input, init);
    if (method !== "subscriptions/listen" || ++listens > 1 || !response.body) return response;
    const reader = response.body.getReader();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent) {
          await reader.cancel();
          return controller.error(new TypeError("terminated"));
        }
        const part = await reader.read();
        sent = true;
        if (part.value) controller.enqueue(part.value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: wrapped, listens: () => listens };
}

describe("listenTasks across a dropped stream", () => {
  it("reads the current state and listens again, losing no terminal state", async () => {
    const dropping = droppingFetch();
    const client = await McpTaskClient.connect(fx.server.url, { key: fx.acmeKey, fetch: dropping.fetch });
    const outcome = await client.callToolOutcome("durable_report", { report_id: "reconnect", settle_ms: 800 });
    if (outcome.kind !== "task") throw new Error("expected a task");
    const seen: TaskView[] = [];
    for await (const snapshot of client.listenTasks([outcome.task.taskId])) seen.push(snapshot);
    expect(dropping.listens()).toBeGreaterThanOrEqual(2);
    expect(seen[0]?.status).toBe("working");
    expect(seen.at(-1)).toMatchObject({ status: "completed", result: { structuredContent: { reportId: "reconnect" } } });
  });
});
