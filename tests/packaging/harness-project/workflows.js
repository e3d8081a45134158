import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

// A team's first workflow, as the authoring guide writes it: one question, one step.
export const greet = defineWorkflow({
  name: "greet",
  version: 1,
  asks: { input: true },
  input: z.object({ name: z.string().min(1) }),
  async run(ctx, input) {
    const answer = await ctx.requestInput("tone", {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: `How should we greet ${input.name}?`,
        requestedSchema: {
          type: "object",
          properties: { tone: { type: "string", enum: ["warm", "formal"] } },
          required: ["tone"],
        },
      },
    });
    const text = await ctx.step("compose", async () =>
      answer.content?.tone === "formal" ? `Good day, ${input.name}.` : `Hi ${input.name}!`,
    );
    return { content: [{ type: "text", text }], structuredContent: { text } };
  },
});

export default [greet];
