import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

// A newcomer's first workflow (tests/packaging/newcomer.test.ts), in TypeScript as the authoring
// guide writes it: one question a person answers, then one step.
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
          properties: { tone: { type: "string", title: "Tone", enum: ["warm", "formal"] } },
          required: ["tone"],
        },
      },
    });
    const formal: boolean = answer.content?.tone === "formal";
    const text = await ctx.step("compose", async () => (formal ? `Good day, ${input.name}.` : `Hi ${input.name}!`));
    return { content: [{ type: "text", text }], structuredContent: { text } };
  },
});

export default [greet];
