import { defineWorkflow } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { logStep } from "../fixtures/engine-workflows";
import { engineStore } from "./support/harness";

/**
 * A durable ctx call made inside a running step body (review 3, E12) is refused at once with a
 * clear message, whatever the body does with the error — before, a nested step was accepted and the
 * run failed later, on the outer step's retry, with "key used twice".
 */
const store = engineStore();

const nested = defineWorkflow({
  name: "nested-ctx",
  version: 1,
  input: z.object({ inner: z.enum(["step", "sleep", "swallowed"]) }),
  async run(ctx, input) {
    await ctx.step("outer", async () => {
      await logStep(ctx.runId, "outer");
      if (input.inner === "sleep") await ctx.sleep("nap", 1);
      else if (input.inner === "step") await ctx.step("inner", () => logStep(ctx.runId, "inner"));
      else await ctx.step("inner", () => logStep(ctx.runId, "inner")).catch(() => "ignored");
      // Progress from inside a step is fine: it is not a durable operation.
      await ctx.progress({ progress: 1 });
      return 1;
    });
    return { content: [] };
  },
});

describe("ctx calls inside a step body", () => {
  it.each([
    ["step", /ctx\.step\("inner"\) was called inside the body of step "outer"/],
    ["sleep", /ctx\.sleep\("nap"\) was called inside the body of step "outer"/],
    ["swallowed", /ctx\.step\("inner"\) was called inside the body of step "outer"/],
  ] as const)("a nested %s fails the run at once with invalid_argument; nothing nested runs", async (inner, message) => {
    await store.startWorker([nested]);
    const run = await store.create(nested, { inner });
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done).toMatchObject({ status: "failed", attempt: 1, failure: { code: "invalid_argument" } });
    expect(String(done.failure?.message)).toMatch(message);
    expect(await store.stepRuns(run.id, "outer")).toBe(1);
    expect(await store.stepRuns(run.id, "inner")).toBe(0);
  });
});
