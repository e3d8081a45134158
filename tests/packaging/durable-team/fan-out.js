import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

// One child: squares its number in a step.
export const square = defineWorkflow({
  name: "square",
  version: 1,
  asks: {},
  input: z.object({ n: z.number().int() }),
  async run(ctx, { n }) {
    const value = await ctx.step("square", async () => n * n);
    return { content: [{ type: "text", text: `${n}² = ${value}` }], structuredContent: { n, value } };
  },
});

// The parent: one child per number, started together and awaited together (the fan-out idiom).
export const sumOfSquares = defineWorkflow({
  name: "sum-of-squares",
  version: 1,
  asks: {},
  input: z.object({ numbers: z.array(z.number().int()).min(2).max(10) }),
  async run(ctx, { numbers }) {
    const children = numbers.map((n, i) => ctx.child(square, { n }, { key: `square-${i}` }));
    const results = await Promise.all(children.map((child) => child.result()));
    const childTaskIds = await Promise.all(children.map((child) => child.taskId()));
    const squares = results.map((result) => result.structuredContent.value);
    const total = squares.reduce((sum, value) => sum + value, 0);
    return { content: [{ type: "text", text: `sum of squares: ${total}` }], structuredContent: { squares, total, childTaskIds } };
  },
});
