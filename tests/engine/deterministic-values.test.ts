import { defineWorkflow, sendSignal } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { logStep } from "../fixtures/engine-workflows";
import { engineStore } from "./support/harness";

/**
 * ctx.now(), ctx.random(), ctx.uuid() (issue 32): each call is recorded once in the run's history
 * and a later attempt — after a park, or after the worker gave the run up in the middle of a step —
 * gets the recorded value back instead of a new one.
 */
const store = engineStore();

type Values = { now: number; random: number; uuid: string };

/** Takes the three values, shows them to a step, parks for a signal, then returns them and one more. */
const stamped = defineWorkflow({
  name: "stamped",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const values: Values = { now: await ctx.now(), random: await ctx.random(), uuid: await ctx.uuid() };
    const seen = await ctx.step("seen", () => values);
    await ctx.waitForSignal("go");
    const later = await ctx.uuid();
    return { content: [], structuredContent: { values, seen, later, attempt: ctx.attempt } };
  },
});

let hang = true;
/** A uuid used as the idempotency key of a step whose first execution never finishes. */
const keyed = defineWorkflow({
  name: "keyed-charge",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const idempotencyKey = await ctx.uuid();
    await ctx.step("charge", async ({ signal }) => {
      await logStep(ctx.runId, idempotencyKey);
      if (hang) await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return idempotencyKey;
    });
    return { content: [], structuredContent: { idempotencyKey } };
  },
});

/** A value asked for beside a pending step: which branch gets which number is timing. */
const parallel = defineWorkflow({
  name: "parallel-now",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await Promise.all([ctx.step("slow", () => new Promise((resolve) => setTimeout(resolve, 50))), ctx.now()]);
    return { content: [] };
  },
});

describe("deterministic values", () => {
  it("records now, random and uuid once and returns the recorded values after the run resumes", async () => {
    const before = Date.now();
    await store.startWorker([stamped]);
    const run = await store.create(stamped, {});
    await store.waitForStatus(run.id, "waiting_signal");
    expect(await sendSignal(store.sql, { runId: run.id, name: "go", payload: null })).toBe(true);
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.failure).toBeNull();
    const result = (await store.terminalPayload(run.id))?.payload.result as {
      structuredContent: { values: Values; seen: Values; later: string; attempt: number };
    };
    const { values, seen, later, attempt } = result.structuredContent;
    // The resumed attempt re-ran the code from the top: a fresh value here would differ from the step's.
    expect(attempt).toBeGreaterThan(1);
    expect(values).toEqual(seen);
    expect(values.now).toBeGreaterThanOrEqual(before - 5_000);
    expect(values.random).toBeGreaterThanOrEqual(0);
    expect(values.random).toBeLessThan(1);
    expect(values.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(later).not.toBe(values.uuid);
    const rows = await store.sql<{ key: string; output: unknown; seq: number | null }[]>`
      SELECT key, output, seq FROM run_steps WHERE run_id = ${run.id} ORDER BY seq`;
    expect(rows.map((row) => [row.key, row.seq])).toEqual([
      ["now:1", 0],
      ["random:1", 1],
      ["uuid:1", 2],
      ["seen", 3],
      ["signal:go#0", 4],
      ["uuid:2", 5],
    ]);
    expect(rows.slice(0, 3).map((row) => row.output)).toEqual([values.now, values.random, values.uuid]);
  });

  it("hands a step re-run after its worker gave the run up the same uuid", async () => {
    hang = true;
    const first = await store.startWorker([keyed], { leaseMs: 1_500 });
    const run = await store.create(keyed, {});
    await expect
      .poll(async () => Number((await store.sql`SELECT count(*) AS n FROM step_log WHERE run_id = ${run.id}`)[0]?.n), {
        timeout: 10_000,
      })
      .toBe(1);
    // Stopping with no grace abandons the attempt in the middle of the step: the uuid was recorded, the step was not.
    await first.stop(0);
    hang = false;
    await store.startWorker([keyed], { leaseMs: 1_500 });
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.failure).toBeNull();
    const keys = await store.sql<{ key: string }[]>`SELECT key FROM step_log WHERE run_id = ${run.id} ORDER BY at`;
    expect(keys).toHaveLength(2);
    expect(keys[1]?.key).toBe(keys[0]?.key);
    const result = (await store.terminalPayload(run.id))?.payload.result as { structuredContent: { idempotencyKey: string } };
    expect(result.structuredContent.idempotencyKey).toBe(keys[0]?.key);
  });

  it("refuses a value asked for while another operation is pending, naming the way out", async () => {
    await store.startWorker([parallel]);
    const run = await store.create(parallel, {});
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.failure).toMatchObject({ code: "invalid_argument" });
    expect(String(done.failure?.message)).toMatch(/ctx\.now\(\) was called while other durable operations were pending/);
    expect(String(done.failure?.message)).toMatch(/before the parallel section/);
  });
});
