import { createRegistry, defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

/**
 * ordinary-final-progress.test.ts: reports 1 of 2, parks for the signal `go`, then reports 2 of 2
 * and returns at once — the last report and the end commit milliseconds apart.
 */
export const finalProgress = defineWorkflow({
  name: "test-final-progress",
  version: 1,
  description: "Reports 1 of 2, waits for the signal go, reports 2 of 2 and returns.",
  input: z.object({}),
  async run(ctx) {
    await ctx.progress({ progress: 1, total: 2 });
    await ctx.waitForSignal("go");
    await ctx.progress({ progress: 2, total: 2 });
    return { content: [{ type: "text", text: "done" }] };
  },
});

export const finalProgressRegistry = createRegistry([finalProgress]);
