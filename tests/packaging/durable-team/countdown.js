import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

// A loop that carries its state into a fresh history each round: the same step and sleep keys every
// generation, which only work because each generation starts on an empty history.
export const countdown = defineWorkflow({
  name: "countdown",
  version: 1,
  asks: {},
  input: z.object({
    from: z.number().int().min(0).max(20),
    generation: z.number().int().min(0).default(0),
    trail: z.array(z.number()).default([]),
  }),
  async run(ctx, input) {
    const seen = await ctx.step("tick", async () => input.from);
    await ctx.sleep("pace", 150);
    const trail = [...input.trail, seen];
    if (input.from > 0) return ctx.continueAsNew({ from: input.from - 1, generation: input.generation + 1, trail });
    return {
      content: [{ type: "text", text: `lift-off after ${input.generation} generations` }],
      structuredContent: { generations: input.generation, trail },
    };
  },
});
