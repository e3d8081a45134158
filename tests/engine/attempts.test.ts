import { defineWorkflow, sendSignal } from "@runifold/sdk";
import { claimRuns, markExpiredLeases } from "@runifold/sdk/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/** Attempts count failures, not resumptions (DESIGN.md section 2; review F1). */
const store = engineStore();

const manySleeps = defineWorkflow({
  name: "many-sleeps",
  version: 1,
  input: z.object({ sleeps: z.number().int(), signals: z.number().int().default(0) }),
  async run(ctx, input) {
    for (let i = 0; i < input.sleeps; i++) await ctx.sleep(`s${i}`, 1);
    let received = 0;
    for (let i = 0; i < input.signals; i++) if ((await ctx.waitForSignal("tick")).received) received += 1;
    return { content: [{ type: "text", text: "done" }], structuredContent: { received } };
  },
});

const stalls = defineWorkflow({
  name: "stalls",
  version: 1,
  maxLostAttempts: 3,
  input: z.object({}),
  async run(ctx) {
    await ctx.step("only", () => 1);
    return { content: [] };
  },
});

describe("attempts", () => {
  it("completes a run with 30 short sleeps (every resumption is a claim, none is a failure)", async () => {
    await store.startWorker([manySleeps]);
    const run = await store.create(manySleeps, { sleeps: 30 });
    const done = await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
    expect(done.status).toBe("completed");
    expect(done.attempt).toBeGreaterThan(25);
    expect(done.lost_attempts).toBe(0);
  });

  it("completes a run with 1,000 resumptions (sleeps and signals)", { timeout: 180_000 }, async () => {
    await store.startWorker([manySleeps]);
    const run = await store.create(manySleeps, { sleeps: 900, signals: 100 });
    await waitFor(
      () => store.run(run.id),
      (row) => row?.status === "waiting_signal" || row?.status === "failed",
      { describe: "the run to reach its signal waits", timeoutMs: 150_000 },
    );
    for (let i = 0; i < 100; i++) await sendSignal(store.sql, { runId: run.id, name: "tick", payload: i });
    const done = await store.waitForStatus(run.id, ["completed", "failed"], 60_000);
    expect(done.status).toBe("completed");
    expect(done.attempt).toBeGreaterThanOrEqual(900);
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({ result: { structuredContent: { received: 100 } } });
  });

  it("counts only attempts whose lease expired without progress, and fails after the workflow's limit", async () => {
    const run = await store.create(stalls, {});
    // A worker that claims the run and dies before doing anything, three times over; the sweep every
    // worker runs finds each expired lease and makes the run claimable again.
    for (let i = 0; i < 3; i++) {
      await waitFor(
        async () => {
          await markExpiredLeases(store.sql);
          return claimRuns(store.sql, { workerId: `ghost-${i}`, workflowKeys: ["stalls@1"], limit: 1, leaseMs: 100 });
        },
        (claimed) => claimed.length === 1,
        { describe: `ghost claim ${i}` },
      );
    }
    await store.startWorker([stalls]);
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.lost_attempts).toBe(3);
    expect(done.failure).toMatchObject({ code: "attempts_exhausted" });
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
      error: { message: "Workflow stalls@1 lost 3 attempts in a row without progress" },
    });
  });

  it("resets the count when an attempt makes progress", async () => {
    const run = await store.create(stalls, {});
    await claimRuns(store.sql, { workerId: "ghost", workflowKeys: ["stalls@1"], limit: 1, leaseMs: 100 });
    await store.startWorker([stalls]);
    const done = await store.waitForStatus(run.id, "completed");
    expect(done.lost_attempts).toBe(0);
    const leased = await store.events(run.id, "leased");
    expect(leased.map((e) => e.payload.lostAttempts)).toEqual([0, 1]);
  });
});
