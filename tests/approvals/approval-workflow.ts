import { type ApprovalPolicy, createRegistry, defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

/** Asks for the approval its input describes and returns what ctx.requestApproval gave back. */
export const approvalFlow = defineWorkflow({
  name: "approval-flow",
  version: 1,
  input: z.object({ policy: z.record(z.string(), z.unknown()), amount: z.number() }),
  async run(ctx, input) {
    const { outcome, decisions, receipt } = await ctx.requestApproval("pay", {
      message: `Pay ${input.amount} EUR?`,
      details: { amount: input.amount },
      policy: input.policy as ApprovalPolicy,
    });
    return {
      content: [{ type: "text", text: outcome }],
      structuredContent: { outcome, decisions, receipt },
    };
  },
});

export const approvalRegistry = createRegistry([approvalFlow]);
