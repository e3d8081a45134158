import { defineWorkflow } from "@runifold/sdk";
import { createTestEnvironment, type RunSnapshot, type TestEnvironment } from "@runifold/sdk/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";

// The SDK's test harness, used the way a team would: its own workflow, a real store, no waiting
// for a durable timer of an hour.
const reminder = defineWorkflow({
  name: "harness-reminder",
  version: 1,
  input: z.object({ who: z.string().min(1), times: z.number().int().min(1).default(1) }),
  async run(ctx, input) {
    const greeting = await ctx.step("greet", async () => `hello ${input.who}`);
    for (let i = 0; i < input.times; i += 1) await ctx.sleep(`wait-${i}`, 60 * 60_000);
    const answer = await ctx.requestInput("confirm", {
      method: "elicitation/create",
      params: {
        message: "Send it?",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      },
    });
    const signal = await ctx.waitForSignal<{ note: string }>("go");
    const note = signal.received ? signal.payload.note : "none";
    return { content: [{ type: "text", text: `${greeting}; ok=${String(answer.content?.ok)}; ${note}` }] };
  },
});

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({ workflows: [reminder], databaseUrl: inject("adminDatabaseUrl") });
}, 120_000);
afterAll(async () => env?.close());

describe("@runifold/sdk/testing createTestEnvironment", () => {
  it("runs a workflow through timers, an input and a signal, and exposes result and history", async () => {
    const runId = await env.start(reminder, { who: "ada", times: 2 });
    const sleeping = (key: string) => (run: RunSnapshot) =>
      run.status === "sleeping" && run.wait !== null && "timer" in run.wait && run.wait.timer.key === key;
    await env.waitFor(runId, sleeping("wait-0"));
    expect(await env.advanceTimers(runId)).toBe(1);
    await env.waitFor(runId, sleeping("wait-1"));
    expect(await env.advanceTimers()).toBe(1);
    const waiting = await env.waitFor(runId, "waiting_input");
    expect(Object.keys(waiting.pendingInputs)).toEqual(["confirm"]);
    await env.answer(runId, "confirm", { action: "accept", content: { ok: true } });
    await env.waitFor(runId, "waiting_signal");
    await env.signal(runId, "go", { note: "ship it" });
    const outcome = await env.result(runId);
    expect(outcome).toEqual({
      status: "completed",
      result: { content: [{ type: "text", text: "hello ada; ok=true; ship it" }] },
    });
    const types = (await env.history(runId)).map((event) => event.type);
    expect(types[0]).toBe("created");
    expect(types.filter((type) => type === "timer_set")).toHaveLength(2);
    expect(types.at(-1)).toBe("completed");
  });

  it("refuses input the workflow's schema rejects, before a run exists", async () => {
    await expect(env.start(reminder, { who: "" })).rejects.toThrow(/who/);
    const [row] = await env.sql`SELECT count(*)::int AS n FROM runs WHERE input->>'who' = ''`;
    expect(row?.n).toBe(0);
  });

  it("fails with the state it saw when a wait times out", async () => {
    const runId = await env.start(reminder, { who: "bob" });
    await expect(env.waitFor(runId, "completed", 300)).rejects.toThrow(/last seen: .*"status":"(queued|leased|sleeping)"/);
  });
});
