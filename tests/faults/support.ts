import { createRegistry, defineWorkflow } from "@runifold/sdk";
import { z } from "zod";
import { stepLog } from "./step-log";

/** RUNIFOLD_FAULTS=quick (the default, inside `npm test`) or full (`npm run test:faults`). */
export const FULL = process.env.RUNIFOLD_FAULTS === "full";
export const size = <T>(quick: T, full: T): T => (FULL ? full : quick);

/** One summary line per fault test, so a CI log shows the counts at a glance. */
export function printCounts(name: string, counts: Record<string, number | string>) {
  const line = Object.entries(counts)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  process.stdout.write(`[faults] ${name} (${FULL ? "full" : "quick"}): ${line}\n`);
}

/** Three short steps, each logged to step_log when its body runs (not when it is replayed). */
export const faultSteps = defineWorkflow({
  name: "fault-steps",
  version: 1,
  input: z.object({ ms: z.number().int().min(0).max(5_000) }),
  async run(ctx, input) {
    let total = 0;
    for (const key of ["a", "b", "c"]) {
      total += await ctx.step(key, async () => {
        await stepLog(ctx.runId, key);
        await new Promise((r) => setTimeout(r, input.ms));
        return 1;
      });
    }
    return { content: [{ type: "text", text: `steps ${total}` }] };
  },
});

/**
 * A long-lived run: `sleeps` short durable sleeps, a logged step every 50 of them (so a step body
 * that ran twice shows in step_log), then `signals` signal waits. Hundreds of resumptions, none of
 * which may count as a failure, across worker kills.
 */
export const faultLong = defineWorkflow({
  name: "fault-long",
  version: 1,
  input: z.object({ sleeps: z.number().int().min(0), signals: z.number().int().min(0) }),
  async run(ctx, input) {
    for (let i = 0; i < input.sleeps; i++) {
      if (i % 50 === 0)
        await ctx.step(`mark-${i}`, async () => {
          await stepLog(ctx.runId, `mark-${i}`);
          return i;
        });
      await ctx.sleep(`s${i}`, 1);
    }
    const payloads: unknown[] = [];
    for (let i = 0; i < input.signals; i++) {
      const signal = await ctx.waitForSignal<number>("tick");
      if (signal.received) payloads.push(signal.payload);
    }
    return { content: [{ type: "text", text: "done" }], structuredContent: { payloads } };
  },
});

/** Waits for a signal that may be sent before the run starts, then runs a slow step to kill the worker in. */
export const faultSignalFirst = defineWorkflow({
  name: "fault-signal-first",
  version: 1,
  input: z.object({ ms: z.number().int().min(0).max(10_000) }),
  async run(ctx, input) {
    const signal = await ctx.waitForSignal<string>("go");
    await ctx.step("slow", async () => {
      await stepLog(ctx.runId, "slow");
      await new Promise((r) => setTimeout(r, input.ms));
      return 1;
    });
    return { content: [{ type: "text", text: "done" }], structuredContent: { payload: signal.received ? signal.payload : null } };
  },
});

/**
 * Two logged steps; the second returns what `poison` says: a plain value, one the engine must refuse
 * ("a\u0000b"), or a marker a test trigger makes the store refuse (poison-batch.test.ts). Every run
 * waits `ms` in each step, so runs claimed together write their checkpoints in the same batch.
 */
export const faultPoison = defineWorkflow({
  name: "fault-poison",
  version: 1,
  input: z.object({ poison: z.enum(["none", "nul", "store-refuses"]), ms: z.number().int().min(0).max(5_000) }),
  async run(ctx, input) {
    for (const key of ["a", "b"]) {
      await ctx.step(key, async () => {
        await stepLog(ctx.runId, key);
        await new Promise((r) => setTimeout(r, input.ms));
        if (key === "a" || input.poison === "none") return "fine";
        return input.poison === "nul" ? "a\u0000b" : "store-refuses";
      });
    }
    return { content: [{ type: "text", text: "done" }] };
  },
});

export const faultRegistry = createRegistry([faultSteps, faultLong, faultSignalFirst, faultPoison]);

/** Error text that must never reach a client: stack frames, SQL, driver and file-system detail. */
export const INTERNAL_DETAIL =
  /\bat \S+\.(ts|js|mjs):\d+|node_modules|postgres(ql)?:\/\/|SELECT |INSERT |UPDATE |\bstack\b|ECONNREFUSED|\/work\/|syntax error at/i;
