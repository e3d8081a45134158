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

const HOUR = 60 * 60_000;

/** Every kind of durable timer: a parked retry, signal and input timeouts, and the run's own deadline. */
const deadlines = defineWorkflow({
  name: "harness-deadlines",
  version: 1,
  timeoutMs: 30 * 24 * HOUR,
  input: z.object({ hang: z.boolean().default(false) }),
  async run(ctx, input) {
    const charged = await ctx.step(
      "charge",
      ({ attempt }) => {
        if (attempt === 1) throw new Error("gateway busy");
        return attempt;
      },
      { retry: { initialBackoffMs: HOUR, maxBackoffMs: HOUR, jitter: 0 } },
    );
    const signal = await ctx.waitForSignal("receipt", { timeoutMs: 24 * HOUR });
    const answer = await ctx.requestInput(
      "approve",
      { method: "elicitation/create", params: { message: "Approve?", requestedSchema: { type: "object", properties: {} } } },
      { timeoutMs: 48 * HOUR, onTimeout: { action: "decline" } },
    );
    await ctx.sleep("cool-off", 2 * HOUR);
    // Waits for a signal with no timeout: only the run's deadline (30 days from creation) ends it.
    if (input.hang) await ctx.waitForSignal("never");
    return { content: [], structuredContent: { charged, received: signal.received, action: answer.action } };
  },
});

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({ workflows: [reminder, deadlines], databaseUrl: inject("adminDatabaseUrl") });
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

  it("advances every kind of timer, one at a time and in order: retry backoff, signal and input timeouts, sleeps, the run's deadline", async () => {
    const runId = await env.start(deadlines, { hang: true });
    const parkedOn = async (parked: (run: RunSnapshot) => boolean) => {
      await env.waitFor(runId, (run) => run.status !== "leased" && run.status !== "queued" && parked(run));
      expect(await env.advanceTimers(runId)).toBe(1);
    };
    const timer = (key: string) => (run: RunSnapshot) => run.wait !== null && "timer" in run.wait && run.wait.timer.key === key;
    await parkedOn(timer("retry:charge"));
    await parkedOn((run) => run.status === "waiting_signal" && run.wait !== null && "signal" in run.wait);
    await parkedOn((run) => run.status === "waiting_input");
    await parkedOn(timer("cool-off"));
    // Parked on a signal that never comes: the next timer is the run's own deadline, 30 days out.
    await parkedOn(
      (run) => run.status === "waiting_signal" && run.wait !== null && "signal" in run.wait && run.wait.signal.name === "never",
    );
    const outcome = await env.result(runId);
    expect(outcome).toMatchObject({ status: "failed", error: { data: { cause: { code: "run_timeout" } } } });
    const types = (await env.history(runId)).map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(["signal_timed_out", "input_timed_out", "timer_set"]));
  });

  it("advanceTime moves a run's clock by the given amount only: a timer further out stays pending", async () => {
    const runId = await env.start(deadlines, {});
    const backoff = (run: RunSnapshot) => run.wait !== null && "timer" in run.wait && run.wait.timer.key === "retry:charge";
    await env.waitFor(runId, (run) => run.status === "sleeping" && backoff(run));
    expect(await env.advanceTime(30 * 60_000, runId)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(backoff(await env.waitFor(runId, "sleeping"))).toBe(true);
    await env.advanceTime(31 * 60_000, runId);
    await env.waitFor(runId, "waiting_signal");
    await env.advanceTime(24 * HOUR, runId);
    await env.waitFor(runId, "waiting_input");
    await env.advanceTime(50 * HOUR, runId);
    await env.waitFor(runId, (run) => run.status === "sleeping" && run.wait !== null && "timer" in run.wait);
    await env.advanceTimers(runId);
    expect(await env.result(runId)).toMatchObject({
      status: "completed",
      result: { structuredContent: { charged: 2, received: false, action: "decline" } },
    });
  });
});
