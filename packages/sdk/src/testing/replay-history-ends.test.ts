import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WorkflowFailure } from "../errors";
import type { HistoryOperation, RunHistory } from "../replay/history-format";
import { defineWorkflow } from "../workflow";
import { replayHistory } from "./replay-history";

/** How a replay ends besides returning: a failed run's onFailure hook, and ctx.continueAsNew (issue 32). */
const at = "2026-01-01T00:00:00.000Z";
const op = (seq: number | null, key: string, kind: HistoryOperation["kind"], value: unknown): HistoryOperation => ({
  seq,
  key,
  kind,
  value,
  at,
});
const base = { format: "runifold.history/1", taskId: "0191a4c2-0000-4000-8000-000000000002", input: {} } as const;

describe("replayHistory of a failed run with an onFailure hook", () => {
  const booking = defineWorkflow({
    name: "booking",
    version: 1,
    input: z.object({}),
    async run(ctx) {
      const hotel = await ctx.step("hotel", () => "H-new");
      await ctx.step("charge", () => 0);
      // Fails between steps: every step of the body is recorded, the failing one is no step.
      if (hotel === "H1") throw new WorkflowFailure("no flight today");
      return { content: [] };
    },
    async onFailure(ctx) {
      await ctx.step("undo", () => 0);
      await ctx.sleep("cool-off", 1_000);
      for (let i = 0; i < 2; i++) await ctx.step("note", () => i);
    },
  });
  const failed: RunHistory = {
    ...base,
    workflow: { name: "booking", version: 1 },
    status: "failed",
    operations: [
      op(0, "hotel", "step", "H1"),
      op(1, "charge", "step", 7),
      op(null, "onfailure", "step", { status: "failed", error: {}, cause: { code: "workflow_failure", message: "x" } }),
      // The hook's own positions start at 0 again: they must not be judged against the body's.
      op(0, "onfailure:undo", "step", 0),
      op(1, "sleep:onfailure:cool-off", "sleep", { wakeAt: at }),
      op(2, "onfailure:note", "step", 0),
      op(3, "repeat:onfailure:note#2", "step", 1),
    ],
  };

  it("replays the body to its failure without asking for the hook's keys", async () => {
    expect(await replayHistory(booking, failed)).toEqual({ replayed: 2, reachedEnd: true });
  });

  it("still fails a body that no longer reaches one of its own recorded steps", async () => {
    const shorter = defineWorkflow({
      ...booking,
      async run() {
        throw new WorkflowFailure("no flight today");
      },
    });
    await expect(replayHistory(shorter, failed)).rejects.toMatchObject({ operation: 1, expected: { key: "hotel" } });
  });
});

describe("replayHistory and ctx.continueAsNew", () => {
  const pager = defineWorkflow({
    name: "pager",
    version: 1,
    input: z.object({ page: z.number().int() }),
    async run(ctx, { page }) {
      const more = await ctx.step("fetch", () => false);
      if (more) await ctx.continueAsNew({ page: page + 1 });
      return { content: [], structuredContent: { last: page } };
    },
  });
  const generation = (status: RunHistory["status"], more: boolean): RunHistory => ({
    ...base,
    input: { page: 3 },
    workflow: { name: "pager", version: 1 },
    status,
    operations: [op(0, "fetch", "step", more)],
  });

  it("ends the generation's replay there, writing nothing", async () => {
    // The database handle of a replay throws on any use: a write would reject the replay.
    expect(await replayHistory(pager, generation("leased", true))).toEqual({
      replayed: 1,
      reachedEnd: true,
      continuedAsNew: true,
    });
  });

  it("refuses an input the next generation could not start from, as the engine does", async () => {
    const bad = defineWorkflow({
      ...pager,
      async run(ctx) {
        await ctx.step("fetch", () => false);
        await ctx.continueAsNew({ page: "four" });
        return { content: [] };
      },
    });
    // The code awaited the schema's refusal and threw it: an unfinished run's history ends there,
    // and the generation did not continue.
    expect(await replayHistory(bad, generation("leased", true))).toEqual({ replayed: 1, reachedEnd: true });
  });

  it("is a divergence when the generation completed, or continues before a recorded operation", async () => {
    await expect(replayHistory(pager, { ...generation("completed", true) })).rejects.toThrow(
      /the run completed, and the code now continues as new/,
    );
    const early = defineWorkflow({
      ...pager,
      async run(ctx) {
        await ctx.continueAsNew({ page: 4 });
        return { content: [] };
      },
    });
    await expect(replayHistory(early, generation("leased", false))).rejects.toMatchObject({
      operation: 1,
      expected: { key: "fetch" },
      message: expect.stringMatching(/the code continued as new without calling it/),
    });
  });
});
