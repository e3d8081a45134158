import { defineWorkflow, NonRetryableError } from "@runifold/sdk";
import { z } from "zod";

/**
 * expense-approval@1: waits for the receipt (a signal the finance backend sends over HTTP), then
 * asks a manager for a decision (an input request any MCP client, the console or the CLI answers),
 * then records it. Every side effect sits in a step, so a retry or a crash never repeats it.
 */
export const expenseApproval = defineWorkflow({
  name: "expense-approval",
  version: 1,
  title: "Expense approval",
  description: "Waits for the receipt, asks a manager to approve the expense, and records the decision.",
  // It asks a question: MCP clients that cannot be asked are refused up front, or get a task handle.
  asks: { input: true },
  input: z.object({
    expense_id: z.string().min(1).max(64),
    amount: z.number().positive().max(100_000),
    currency: z.enum(["EUR", "USD", "GBP"]).default("EUR"),
  }),
  async run(ctx, input) {
    await ctx.progress({ progress: 0, total: 3, message: "waiting for the receipt" });
    const receipt = await ctx.waitForSignal<{ url: string }>("receipt", { timeoutMs: 7 * 24 * 60 * 60_000 });
    if (!receipt.received) throw new NonRetryableError("no receipt within a week");

    await ctx.progress({ progress: 1, total: 3, message: "waiting for a manager" });
    const answer = await ctx.requestInput("decision", {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `Approve ${input.expense_id}: ${input.amount} ${input.currency} (receipt ${receipt.payload.url})?`,
        requestedSchema: {
          type: "object",
          properties: {
            decision: { type: "string", enum: ["approve", "reject"], title: "Decision" },
            comment: { type: "string", title: "Comment", maxLength: 500 },
          },
          required: ["decision"],
        },
      },
    });
    const approved = answer.action === "accept" && answer.content?.decision === "approve";
    const recorded = await ctx.step("record", async () => ({
      expenseId: input.expense_id,
      decision: approved ? "approved" : "rejected",
      receipt: receipt.payload.url,
    }));
    await ctx.progress({ progress: 3, total: 3, message: recorded.decision });
    return {
      content: [{ type: "text", text: `Expense ${input.expense_id} ${recorded.decision}.` }],
      structuredContent: recorded,
      ...(approved ? {} : { isError: true }),
    };
  },
});

export default [expenseApproval];
