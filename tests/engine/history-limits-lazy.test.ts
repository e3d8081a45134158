import { createHash, randomBytes } from "node:crypto";
import { defineWorkflow } from "@runifold/sdk";
import { LAZY_STEP_BYTES, loadRunState } from "@runifold/sdk/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { engineStore } from "./support/harness";

/**
 * Lazy step outputs (issue 32; review 3, E7 probe 2: 200 outputs of 1 MiB loaded 201 MiB on every
 * resume): a resume loads large step outputs' keys and positions only, and each value when the
 * replay reaches its ctx.step.
 */
const store = engineStore();

const digest = (parts: string[]) => createHash("sha256").update(parts.join("|")).digest("hex");

/** `n` rounds of a large (incompressible) output, a small one and a sleep: every round is a resume. */
const bigSteps = defineWorkflow({
  name: "lazy-big-steps",
  version: 1,
  input: z.object({ n: z.number().int(), bytes: z.number().int() }),
  async run(ctx, input) {
    const seen: string[] = [];
    for (let i = 0; i < input.n; i++) {
      seen.push(await ctx.step("big", () => randomBytes(input.bytes / 2).toString("hex")));
      seen.push(await ctx.step("small", () => `small-${i}`));
      await ctx.sleep("nap", 1);
    }
    // On the last attempt every value above came from the history: lazily for the large ones.
    return { content: [], structuredContent: { digest: digest(seen), count: seen.length } };
  },
});

describe("lazy step outputs", () => {
  it("replays large outputs read on first use, the same values as stored, while the state holds only placeholders", async () => {
    await store.startWorker([bigSteps]);
    const run = await store.create(bigSteps, { n: 6, bytes: 64 * 1024 });
    await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
    expect((await store.run(run.id))?.failure).toBeNull();
    const stored = await store.sql<{ key: string; output: string }[]>`
      SELECT key, output #>> '{}' AS output FROM run_steps WHERE run_id = ${run.id} AND key NOT LIKE 'sleep:%' ORDER BY seq`;
    expect(stored).toHaveLength(12);
    const result = (await store.terminalPayload(run.id))?.payload.result as { structuredContent: { digest: string } };
    expect(result.structuredContent.digest).toBe(digest(stored.map((row) => row.output)));

    const state = await loadRunState(store.sql, run.id);
    const big = [...state.steps].filter(([key]) => key === "big" || key.startsWith("repeat:big#"));
    expect(big).toHaveLength(6);
    for (const [, recorded] of big) expect(recorded).toMatchObject({ value: null, lazy: true });
    expect(state.steps.get("repeat:small#6")).toEqual({ value: "small-5", seq: expect.any(Number) });
    expect(state.steps.get("sleep:nap")?.lazy).toBeUndefined();
    expect(LAZY_STEP_BYTES).toBeLessThan(64 * 1024);
  });
});
