import { appendFileSync } from "node:fs";
import { createRegistry, defineWorkflow } from "@runifold/sdk";
import { z } from "zod";

/**
 * The primary-failover test's workflow (primary-failover.test.ts): two steps whose side effect is
 * outside the database — a line appended to FAILOVER_EFFECTS_FILE when the body runs (never on a
 * replay) — then a wait for the signal `go`, then a third such step with the signal's payload. The
 * file is what a failover must not make happen more often than at-least-once allows.
 */
export const failoverEffects = defineWorkflow({
  name: "failover-effects",
  version: 1,
  // Asks its caller nothing (a signal is not a question), so a client without elicitation may call it.
  asks: {},
  input: z.object({ ms: z.number().int().min(0).max(5_000) }),
  async run(ctx, input) {
    const effect = async (key: string) =>
      ctx.step(key, async () => {
        appendFileSync(process.env.FAILOVER_EFFECTS_FILE ?? "", `${ctx.runId} ${key} ${Date.now()} ${process.pid}\n`);
        await new Promise((r) => setTimeout(r, input.ms));
        return key;
      });
    await effect("a");
    await effect("b");
    const signal = await ctx.waitForSignal<string>("go");
    await effect("c");
    return { content: [{ type: "text", text: "done" }], structuredContent: { go: signal.received ? signal.payload : null } };
  },
});

export const failoverRegistry = createRegistry([failoverEffects]);

/** One line of the effects file: which run's step ran, when (ms) and in which worker process. */
export type Effect = { runId: string; key: string; at: number; pid: number };

export function parseEffects(text: string): Effect[] {
  return text
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const [runId = "", key = "", at = "0", pid = "0"] = line.split(" ");
      return { runId, key, at: Number(at), pid: Number(pid) };
    });
}
