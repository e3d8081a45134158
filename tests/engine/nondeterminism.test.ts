import { defineWorkflow } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { engineStore } from "./support/harness";

/** Non-determinism caught: replaying history against changed code fails the run with a clear error. */
const store = engineStore();

/** Version 1 as it ran: a step, then a sleep. */
const original = defineWorkflow({
  name: "drifts",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.step("reserve", () => "r-1");
    await ctx.sleep("wait", 60_000);
    await ctx.step("charge", () => "c-1");
    return { content: [] };
  },
});

/** The same name and version after an edit: a step added before the recorded ones. */
const inserted = defineWorkflow({
  ...original,
  async run(ctx) {
    await ctx.step("check-fraud", () => true);
    await ctx.step("reserve", () => "r-1");
    await ctx.sleep("wait", 60_000);
    return { content: [] };
  },
});

/** The same name and version after an edit: the sleep became a step of the same name. */
const kindChanged = defineWorkflow({
  ...original,
  async run(ctx) {
    await ctx.step("reserve", () => "r-1");
    await ctx.step("wait", () => "no longer a sleep");
    return { content: [] };
  },
});

/** Parallel branches reach their operations in an order that depends on timing: never flagged. */
const parallel = defineWorkflow({
  name: "parallel-branches",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const slow = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await Promise.all([
      (async () => {
        await ctx.step("a1", () => slow(80));
        await ctx.step("a2", () => slow(1));
      })(),
      (async () => {
        await ctx.step("b1", () => slow(1));
        await ctx.step("b2", () => slow(1));
      })(),
    ]);
    await ctx.sleep("between", 1);
    await ctx.step("after", () => 1);
    return { content: [] };
  },
});

async function runUntilSleeping() {
  const worker = await store.startWorker([original]);
  const run = await store.create(original, {});
  await store.waitForStatus(run.id, "sleeping");
  await worker.stop(500);
  // The timer is due now: the next worker replays the history with its own code.
  await store.sql`UPDATE run_steps SET output = jsonb_build_object('wakeAt', now()) WHERE run_id = ${run.id} AND key = 'sleep:wait'`;
  await store.sql`UPDATE runs SET claimable_at = now() WHERE id = ${run.id}`;
  return run;
}

describe("workflow code changed under a running version", () => {
  it.each([
    [
      "a step inserted before recorded ones",
      inserted,
      /operation #1 was ctx\.step\("reserve"\) when it ran, and the code now calls ctx\.step\("check-fraud"\)/,
    ],
    [
      "a sleep turned into a step",
      kindChanged,
      /operation #2 was ctx\.sleep\("wait"\) when it ran, and the code now calls ctx\.step\("wait"\)/,
    ],
  ])("fails the run on %s", async (_what, changed, message) => {
    const run = await runUntilSleeping();
    await store.startWorker([changed]);
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.status).toBe("failed");
    expect(done.failure).toMatchObject({ code: "nondeterminism" });
    expect(String(done.failure?.message)).toMatch(/workflow code changed under a running version/);
    expect(String(done.failure?.message)).toMatch(message);
  });

  it("replays parallel branches and the unchanged code without a false alarm", async () => {
    await store.startWorker([parallel]);
    const run = await store.create(parallel, {});
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.failure).toBeNull();
    expect(done.status).toBe("completed");
  });
});
