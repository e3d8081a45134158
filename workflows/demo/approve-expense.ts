import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

/**
 * approve-expense@1: asks a human (an MCP client or an operator in the inbox) for a decision
 * through one durable input request. A rejection is an application-level outcome: the task
 * completes with `isError: true`.
 */
export const approveExpense = defineWorkflow({
  name: "approve-expense",
  version: 1,
  title: "Approve expense",
  description: "Requests an approval decision for an expense, then records it.",
  asks: { input: true },
  input: z.object({
    expense_id: z.string().min(1).max(200),
    amount: z.number().positive().max(1_000_000_000),
    currency: z.string().length(3).default("EUR"),
    description: z.string().max(2_000).default(""),
  }),
  async run(ctx, input) {
    const answer = await ctx.requestInput("decision", {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `Approve expense ${input.expense_id} of ${input.amount.toFixed(2)} ${input.currency}${input.description ? ` (${input.description})` : ""}?`,
        requestedSchema: {
          type: "object",
          properties: {
            decision: {
              type: "string",
              title: "Decision",
              enum: ["approve", "reject"],
              enumNames: ["Approve", "Reject"],
              default: "approve",
            },
            comment: { type: "string", title: "Comment", maxLength: 500 },
          },
          required: ["decision"],
        },
      },
    });
    const decision = answer.action === "accept" && answer.content?.decision === "approve" ? "approved" : "rejected";
    const comment = typeof answer.content?.comment === "string" ? answer.content.comment : "";
    await ctx.step("record-decision", async () => ({ decision, comment }));
    return {
      content: [{ type: "text", text: `Expense ${input.expense_id} ${decision}${comment ? `: ${comment}` : "."}` }],
      structuredContent: { expenseId: input.expense_id, decision, comment },
      ...(decision === "rejected" ? { isError: true } : {}),
    };
  },
});
