import { randomBytes } from "node:crypto";
import { createRegistry, createWorker, defineWorkflow, type Limits, silentLogger, type Worker } from "@runifold/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { logStep } from "../fixtures/engine-workflows";
import { engineStore } from "./support/harness";

/**
 * History limits (issue 32; review 3, E7): per generation of a run, events on its timeline and stored
 * bytes of the history a resume loads. A warning on the timeline at 80 %, the run failed with
 * `history_too_large` at the limit — checked at every resume and before every step's checkpoint.
 */
const store = engineStore();
const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(500)));
});

async function startWorker(workflows: Parameters<typeof createRegistry>[0], limits: Partial<Limits>) {
  const worker = createWorker({
    sql: store.sql,
    registry: createRegistry(workflows),
    logger: silentLogger,
    leaseMs: 5_000,
    pollMs: 50,
    limits,
  });
  workers.push(worker);
  await worker.start();
  return worker;
}

/** `n` steps in one attempt (no park), each logged. */
const tightLoop = defineWorkflow({
  name: "limits-tight-loop",
  version: 1,
  input: z.object({ n: z.number().int() }),
  async run(ctx, input) {
    for (let i = 0; i < input.n; i++) await ctx.step("tick", () => logStep(ctx.runId, `tick-${i}`).then(() => i));
    return { content: [] };
  },
});

/** `n` steps of `bytes` random (incompressible) bytes each, with a sleep after each: every step is a resume. */
const bigOutputs = defineWorkflow({
  name: "limits-big-outputs",
  version: 1,
  input: z.object({ n: z.number().int(), bytes: z.number().int() }),
  async run(ctx, input) {
    for (let i = 0; i < input.n; i++) {
      await ctx.step("blob", () => randomBytes(input.bytes / 2).toString("hex"));
      await ctx.sleep("nap", 1);
    }
    return { content: [] };
  },
});

/** `per` steps per generation, `total` generations. */
const rolling = defineWorkflow({
  name: "limits-rolling",
  version: 1,
  input: z.object({ gen: z.number().int(), total: z.number().int(), per: z.number().int() }),
  async run(ctx, input) {
    for (let i = 0; i < input.per; i++) await ctx.step("tick", () => i);
    if (input.gen + 1 < input.total) await ctx.continueAsNew({ ...input, gen: input.gen + 1 });
    return { content: [], structuredContent: { gen: input.gen } };
  },
});

async function failureOf(id: string) {
  await store.waitForStatus(id, ["completed", "failed"], 30_000);
  return (await store.run(id))?.failure as { code: string; message: string; step?: string } | null;
}

async function warnings(id: string) {
  return store.sql<{ payload: { message: string; data: { historyWarning: { percent: number } } } }[]>`
    SELECT payload FROM run_events WHERE run_id = ${id} AND type = 'log' AND payload->'data' ? 'historyWarning' ORDER BY id`;
}

describe("history limits", () => {
  it("fails a run at its event limit with history_too_large, after one warning at 80 %", async () => {
    await startWorker([tightLoop], { historyEvents: 20 });
    const run = await store.create(tightLoop, { n: 100 });
    const failure = await failureOf(run.id);
    expect(failure?.code).toBe("history_too_large");
    expect(failure?.message).toContain("ctx.continueAsNew");
    // The step that would have passed the limit ran, but was not recorded; none ran after it.
    const [ran] = await store.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM step_log WHERE run_id = ${run.id}`;
    const [recorded] = await store.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM run_steps WHERE run_id = ${run.id}`;
    expect(ran?.n).toBeLessThan(20);
    expect(recorded?.n).toBe((ran?.n ?? 0) - 1);
    const warned = await warnings(run.id);
    expect(warned).toHaveLength(1);
    expect(warned[0]?.payload.data.historyWarning.percent).toBeGreaterThanOrEqual(80);
  });

  it("fails a run at its byte limit, measured again at every resume", async () => {
    await startWorker([bigOutputs], { historyBytes: 64 * 1024 });
    const run = await store.create(bigOutputs, { n: 20, bytes: 8 * 1024 });
    const failure = await failureOf(run.id);
    expect(failure?.code).toBe("history_too_large");
    expect(failure?.message).toContain("65536 bytes");
    const [stored] = await store.sql<{ bytes: number }[]>`
      SELECT sum(pg_column_size(output))::int AS bytes FROM run_steps WHERE run_id = ${run.id}`;
    expect(stored?.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(stored?.bytes).toBeGreaterThan(48 * 1024);
    expect(await warnings(run.id)).toHaveLength(1);
  });

  it("counts per generation: a run that continues as new stays under limits its whole history would pass", async () => {
    await startWorker([rolling], { historyEvents: 30 });
    const run = await store.create(rolling, { gen: 0, total: 5, per: 10 });
    expect(await failureOf(run.id)).toBeNull();
    const [events] = await store.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM run_events WHERE run_id = ${run.id}`;
    expect(events?.n).toBeGreaterThan(30); // the whole timeline is over the limit; no generation was
    expect(await warnings(run.id)).toHaveLength(0);
  });
});
