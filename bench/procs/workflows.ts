import { createRegistry, defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

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

export const benchRegistry = createRegistry([benchNoop]);
