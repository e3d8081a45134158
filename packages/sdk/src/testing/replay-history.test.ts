import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunHistory } from "../replay/history-format";
import { defineWorkflow, type WorkflowContext } from "../workflow";
import { ReplayDivergence, replayHistory } from "./replay-history";

/** replayHistory needs no database: a history written by hand replays (or diverges) in memory. */
const history: RunHistory = {
  format: "runifold.history/1",
  taskId: "0191a4c2-0000-4000-8000-000000000001",
  workflow: { name: "order", version: 1 },
  status: "completed",
  input: { id: "o-1" },
  operations: [
    { seq: 0, key: "now:1", kind: "now", value: 1_700_000_000_000, at: "2026-01-01T00:00:00.000Z" },
    { seq: 1, key: "load", kind: "step", value: { total: 5 }, at: "2026-01-01T00:00:00.010Z" },
    { seq: 2, key: "sleep:settle", kind: "sleep", value: { wakeAt: "2026-01-01T01:00:00.000Z" }, at: "2026-01-01T00:00:00.020Z" },
    { seq: 3, key: "ship", kind: "step", value: "s-9", at: "2026-01-01T01:00:00.100Z" },
  ],
};

function order(run: (ctx: WorkflowContext) => Promise<unknown>) {
  return defineWorkflow({
    name: "order",
    version: 1,
    input: z.object({ id: z.string() }),
    async run(ctx) {
      return { content: [], structuredContent: { value: await run(ctx) } };
    },
  });
}

const asRecorded = order(async (ctx) => {
  const at = await ctx.now();
  const { total } = await ctx.step("load", (): { total: number } => {
    throw new Error("a replay must not run a step body");
  });
  await ctx.sleep("settle", 3_600_000);
  const shipment = await ctx.step("ship", () => "new");
  return { at, total, shipment };
});

describe("replayHistory", () => {
  it("replays the recorded values without running anything", async () => {
    const report = await replayHistory(asRecorded, history);
    expect(report).toEqual({
      replayed: 4,
      reachedEnd: false,
      result: { content: [], structuredContent: { value: { at: 1_700_000_000_000, total: 5, shipment: "s-9" } } },
    });
  });

  it("names the operation and both sides when a sleep became a step", async () => {
    const changed = order(async (ctx) => {
      await ctx.now();
      await ctx.step("load", () => 0);
      await ctx.step("settle", () => 0);
    });
    const error = await replayHistory(changed, history).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplayDivergence);
    expect(error).toMatchObject({
      operation: 3,
      expected: { key: "sleep:settle", kind: "sleep" },
      got: { key: "settle", kind: "step" },
    });
    expect((error as Error).message).toMatch(/the history has ctx\.sleep\("settle"\), and the code calls ctx\.step\("settle"\)/);
  });

  it("fails when the code returns before an operation the run had, even if it swallows errors", async () => {
    const shorter = order(async (ctx) => {
      await ctx.now();
      await ctx.step("load", () => 0);
      return "early";
    });
    await expect(replayHistory(shorter, history)).rejects.toMatchObject({
      operation: 3,
      expected: { key: "sleep:settle" },
      message: expect.stringMatching(/the history has ctx\.sleep\("settle"\) there, and the code returned without calling it/),
    });
    const swallowing = order(async (ctx) => {
      await ctx.now();
      await ctx.step("other", () => 0).catch(() => "ignored");
      return "done";
    });
    await expect(replayHistory(swallowing, history)).rejects.toMatchObject({ operation: 2, got: { key: "other" } });
  });

  it("refuses a file that is not an export, or another workflow's", async () => {
    await expect(replayHistory(asRecorded, { ...history, format: "x" } as unknown as RunHistory)).rejects.toThrow(
      /not an exported history/,
    );
    await expect(replayHistory(asRecorded, { ...history, workflow: { name: "refund", version: 1 } })).rejects.toThrow(
      /the history is of workflow "refund", not "order"/,
    );
  });
});

describe("replayHistory and ctx.patched", () => {
  /** The ship step moved behind a patch point: `ship-v2` for runs that reach it after the change. */
  const patchedShip = order(async (ctx) => {
    await ctx.now();
    await ctx.step("load", () => ({ total: 0 }));
    await ctx.sleep("settle", 3_600_000);
    return ctx.patched("ship-v2") ? ctx.step("ship-v2", () => "new") : ctx.step("ship", () => "new");
  });
  const marker = { seq: null, key: "patched:ship-v2", kind: "patched" as const, value: true, at: "2026-01-01T01:00:00.050Z" };

  it("replays a run that completed before the patch on the old path", async () => {
    const report = await replayHistory(patchedShip, history);
    expect(report.result?.structuredContent).toEqual({ value: "s-9" });
  });

  it("replays a run that recorded the marker on the new path, and one whose patch was since retired", async () => {
    const withMarker: RunHistory = {
      ...history,
      operations: [
        ...history.operations.slice(0, 3),
        marker,
        { seq: 3, key: "ship-v2", kind: "step", value: "s-10", at: "2026-01-01T01:00:00.100Z" },
      ],
    };
    expect((await replayHistory(patchedShip, withMarker)).result?.structuredContent).toEqual({ value: "s-10" });
    const retired = order(async (ctx) => {
      await ctx.now();
      await ctx.step("load", () => ({ total: 0 }));
      await ctx.sleep("settle", 3_600_000);
      ctx.deprecatePatch("ship-v2");
      return ctx.step("ship-v2", () => "new");
    });
    expect((await replayHistory(retired, withMarker)).result?.structuredContent).toEqual({ value: "s-10" });
  });

  it("ends an unfinished run's replay where it reaches a patch point for the first time", async () => {
    const parked: RunHistory = { ...history, status: "sleeping", operations: history.operations.slice(0, 3) };
    expect(await replayHistory(patchedShip, parked)).toEqual({ replayed: 3, reachedEnd: true });
  });
});
