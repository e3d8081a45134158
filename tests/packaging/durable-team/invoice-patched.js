import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";
import { ask } from "./ask.js";

// invoice-total@1 with a fix behind ctx.patched: the total now includes 20 % tax. Runs that computed
// their total before this build keep the old path; the others take the new one.
export const invoiceTotal = defineWorkflow({
  name: "invoice-total",
  version: 1,
  asks: { input: true },
  input: z.object({ amount: z.number().int().positive() }),
  async run(ctx, input) {
    await ctx.requestInput("review", ask(`Review the invoice of ${input.amount}?`));
    const taxed = ctx.patched("add-tax");
    const total = taxed
      ? await ctx.step("total-with-tax", async () => Math.round(input.amount * 1.2))
      : await ctx.step("total", async () => input.amount);
    const path = taxed ? "new" : "old";
    await ctx.requestInput("send", ask(`Send the invoice of ${total}?`));
    return { content: [{ type: "text", text: `sent: ${total}` }], structuredContent: { path, total } };
  },
});
