import { defineWorkflow } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { engineStore } from "./support/harness";

/**
 * Progress and log lines are skipped only while a replay re-runs work already recorded (review 3,
 * E8): an answer given before the run started (preflight) to a question it never asks is not work
 * to replay, and must not silence the run.
 */
const store = engineStore();

const booking = defineWorkflow({
  name: "booking",
  version: 1,
  input: z.object({ amount: z.number() }),
  async run(ctx, input) {
    await ctx.progress({ progress: 1, total: 2, message: "quoting" });
    await ctx.step("quote", () => input.amount);
    await ctx.sleep("settle", 1);
    // A confirmation is asked only above a threshold; a client may have answered it up front.
    if (input.amount > 100)
      await ctx.requestInput("confirm", {
        method: "elicitation/create",
        params: { message: "Confirm?", requestedSchema: { type: "object", properties: {} } },
      });
    await ctx.log("booked", { amount: input.amount });
    await ctx.progress({ progress: 2, total: 2, message: "booked" });
    return { content: [{ type: "text", text: "booked" }] };
  },
});

const preanswered = {
  confirm: {
    request: { method: "elicitation/create", params: { message: "Confirm?" } },
    response: { action: "accept", content: {} },
  },
};

describe("progress and log lines around a preflight answer (E8)", () => {
  it.each([
    ["never asks the pre-answered question", 5],
    ["asks it and reads the answer given up front", 500],
  ])("writes every line once when the run %s", async (_, amount) => {
    await store.startWorker([booking]);
    const run = await store.create(booking, { amount }, { answeredInputs: preanswered });
    expect((await store.waitForStatus(run.id, ["completed", "failed"])).status).toBe("completed");
    const [row] = await store.sql<{ progress: Record<string, unknown> | null }[]>`SELECT progress FROM runs WHERE id = ${run.id}`;
    expect(row?.progress).toEqual({ progress: 2, total: 2, message: "booked" });
    expect((await store.events(run.id, "log")).map((e) => e.payload)).toEqual([{ message: "booked", data: { amount } }]);
  });
});
