import { describe, expect, it } from "vitest";
import { RunSuspended } from "../errors";
import type { StepOptions } from "../workflow";
import { type SagaContext, saga } from "./saga";
import type { CompletedStep } from "./types";

/** A ctx whose steps run at once and are listed: the saga's order and keys, without a store. */
function ctxOf(completedSteps: CompletedStep[]) {
  const steps: string[] = [];
  const ctx: SagaContext = {
    completedSteps,
    async step<T>(key: string, fn: () => Promise<T> | T, _options?: StepOptions) {
      steps.push(key);
      return await fn();
    },
  };
  return { ctx, steps };
}

const completed: CompletedStep[] = [
  { key: "hotel", output: { id: "H1" } },
  { key: "charge", output: { id: "C1" } },
  { key: "note", output: null },
  { key: "repeat:charge#2", output: { id: "C2" } },
];

describe("saga", () => {
  it("undoes the registered completed steps newest first, each loop iteration with its own output", async () => {
    const { ctx, steps } = ctxOf(completed);
    const undone: unknown[] = [];
    await saga(ctx)
      .add("hotel", (output) => undone.push(output))
      .add("charge", (output) => undone.push(output))
      .add("never-ran", () => undone.push("never"))
      .compensate();
    expect(steps).toEqual(["undo:repeat:charge#2", "undo:charge", "undo:hotel"]);
    expect(undone).toEqual([{ id: "C2" }, { id: "C1" }, { id: "H1" }]);
  });

  it("runs every compensation when one fails, then throws the first failure", async () => {
    const { ctx, steps } = ctxOf(completed);
    const run = saga(ctx)
      .add("hotel", () => {
        throw new Error("hotel refuses");
      })
      .add("charge", (output) => {
        if ((output as { id: string }).id === "C2") throw new Error("refund refused");
      })
      .compensate();
    await expect(run).rejects.toThrow("refund refused");
    expect(steps).toEqual(["undo:repeat:charge#2", "undo:charge", "undo:hotel"]);
  });

  it("stops at once on the engine's control flow (the run parked)", async () => {
    const { ctx, steps } = ctxOf(completed);
    const run = saga(ctx)
      .add("hotel", () => undefined)
      .add("charge", () => {
        throw new RunSuspended("parked");
      })
      .compensate();
    await expect(run).rejects.toBeInstanceOf(RunSuspended);
    expect(steps).toEqual(["undo:repeat:charge#2"]);
  });

  it("refuses a key registered twice or a missing compensation", () => {
    const { ctx } = ctxOf(completed);
    expect(() =>
      saga(ctx)
        .add("hotel", () => 1)
        .add("hotel", () => 2),
    ).toThrow(/registered twice/);
    expect(() => saga(ctx).add("hotel", undefined as never)).toThrow(/needs a compensation function/);
  });
});
