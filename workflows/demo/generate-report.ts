import { defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

/**
 * generate-report@1: gathers sections step by step with visible progress, waits durably (a report
 * "settles" before rendering), then renders. Survives worker restarts at every boundary.
 */
export const generateReport = defineWorkflow({
  name: "generate-report",
  version: 1,
  title: "Generate report",
  description: "Builds a report in a few durable steps with progress; the result has text and structured content.",
  asks: {},
  input: z.object({
    report_id: z.string().min(1).max(200),
    sections: z.number().int().min(1).max(20).default(3),
    settle_ms: z.number().int().min(0).max(3_600_000).default(1_000),
  }),
  async run(ctx, input) {
    const sections: { title: string; rows: number }[] = [];
    for (let i = 1; i <= input.sections; i++) {
      const section = await ctx.step(`section-${i}`, async () => ({ title: `Section ${i}`, rows: ((i * 7) % 11) + 1 }));
      sections.push(section);
      await ctx.progress({ progress: i, total: input.sections + 1, message: `Gathered section ${i} of ${input.sections}` });
    }
    await ctx.sleep("settle", input.settle_ms);
    const rendered = await ctx.step("render", async () => ({
      totalRows: sections.reduce((sum, s) => sum + s.rows, 0),
      renderedAt: new Date().toISOString(),
    }));
    await ctx.progress({ progress: input.sections + 1, total: input.sections + 1, message: "Rendered" });
    return {
      content: [{ type: "text", text: `Report ${input.report_id}: ${sections.length} sections, ${rendered.totalRows} rows.` }],
      structuredContent: { reportId: input.report_id, sections, totalRows: rendered.totalRows, renderedAt: rendered.renderedAt },
    };
  },
});
