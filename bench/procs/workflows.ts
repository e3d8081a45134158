import { createRegistry, defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

/** Steps in the multi-step and fan-in shapes (the "10-step workflow"). */
export const MULTI_STEPS = 10;

/**
 * The benchmark workflow: one durable step that records when it started (high-resolution wall clock, same machine
 * as the bench process), so the latency benchmark can read enqueue → step start from the store.
 */
export const benchNoop = defineWorkflow({
  name: "bench-noop",
  version: 1,
  input: z.object({}).passthrough(),
  async run(ctx) {
    await ctx.step("only", () => ({ startedAt: performance.timeOrigin + performance.now() }));
    return { content: [] };
  },
});

/** Multi-step: ten no-op checkpoints one after another (each step is one durable write). */
export const benchSteps = defineWorkflow({
  name: "bench-steps",
  version: 1,
  input: z.object({}).passthrough(),
  async run(ctx) {
    for (let i = 0; i < MULTI_STEPS; i++) await ctx.step(`s${i}`, () => i);
    return { content: [] };
  },
});

/** Fan-in: ten no-op steps started together (Promise.all) and joined by a last step over their results. */
export const benchFanIn = defineWorkflow({
  name: "bench-fan-in",
  version: 1,
  input: z.object({}).passthrough(),
  async run(ctx) {
    const parts = await Promise.all(Array.from({ length: MULTI_STEPS }, (_, i) => ctx.step(`p${i}`, () => i)));
    await ctx.step("join", () => parts.reduce((a, b) => a + b, 0));
    return { content: [] };
  },
});

export const benchRegistry = createRegistry([benchNoop, benchSteps, benchFanIn]);
