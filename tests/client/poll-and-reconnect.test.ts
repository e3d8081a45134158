import { McpTaskClient, type TaskView } from "@runifold/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wakeSleepingRun } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";
import { type ClientFixture, startClientFixture } from "./client-fixture";

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
    const outcome = await client.callToolOutcome("durable_report", { report_id: "reconnect", settle_ms: 600_000 });
    if (outcome.kind !== "task") throw new Error("expected a task");
    const taskId = outcome.task.taskId;
    // The task sleeps until the client has listened again after the drop: the terminal state can
    // only come on the second stream, so the test always covers the reconnect.
    const woken = waitFor(dropping.listens, (n) => n >= 2, { describe: "the client to listen again after the drop" }).then(() =>
      wakeSleepingRun(fx.db.sql, taskId),
    );
    const seen: TaskView[] = [];
    for await (const snapshot of client.listenTasks([taskId])) seen.push(snapshot);
    await woken;
    expect(dropping.listens()).toBeGreaterThanOrEqual(2);
    expect(seen[0]?.status).toBe("working");
    expect(seen.at(-1)).toMatchObject({ status: "completed", result: { structuredContent: { reportId: "reconnect" } } });
  });
});
