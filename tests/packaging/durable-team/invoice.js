import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";
import { ask } from "./ask.js";

// invoice-total@1 as first deployed: review, compute the total, confirm sending.
export const invoiceTotal = defineWorkflow({
  name: "invoice-total",
  version: 1,
  asks: { input: true },
  input: z.object({ amount: z.number().int().positive() }),
  async run(ctx, input) {
    await ctx.requestInput("review", ask(`Review the invoice of ${input.amount}?`));
    const total = await ctx.step("total", async () => input.amount);
    const path = "old";
    await ctx.requestInput("send", ask(`Send the invoice of ${total}?`));
    return { content: [{ type: "text", text: `sent: ${total}` }], structuredContent: { path, total } };
  },
});
