import { defineWorkflow } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { chargeLoop } from "../fixtures/engine-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/**
 * A step or sleep key used again in one run (issue 32; review 3, E12 failed the run): each call
 * gets its own history key — `charge`, `repeat:charge#2`, … — numbered in call order, the same on
 * every replay, as Inngest users expect of a loop of `step.run("charge")`.
 */
const store = engineStore();

const napLoop = defineWorkflow({
  name: "nap-loop",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    for (let i = 1; i <= 3; i++) {
      await ctx.step("tick", () => i);
      await ctx.sleep("nap", 30);
    }
    return { content: [] };
  },
});

const parallelSameKey = defineWorkflow({
  name: "parallel-same-key",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await Promise.all([1, 2].map((i) => ctx.step("charge", () => i)));
    return { content: [] };
  },
});

const reservedKey = defineWorkflow({
  name: "reserved-repeat-key",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.step("repeat:charge#2", () => 1);
    return { content: [] };
  },
});

const logged = (runId: string) =>
  store.sql<{ key: string }[]>`SELECT key FROM step_log WHERE run_id = ${runId} ORDER BY at`.then((rows) =>
    rows.map((row) => row.key),
  );

describe("repeated step keys", () => {
  it("resumes a loop of one step key after its worker is SIGKILLed mid-iteration, without re-running finished iterations", async () => {
    const env = { DATABASE_URL: store.url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "200" };
    const victim = spawnTs("tests/helpers/test-worker-process.ts", env);
    let survivor: ReturnType<typeof spawnTs> | undefined;
    try {
      const run = await store.create(chargeLoop, { n: 6, slowAt: 4, slowMs: 4_000 });
      await waitFor(
        () => logged(run.id),
        (keys) => keys.some((key) => key.startsWith("charge-4 ")),
        { describe: "iteration 4 to start", timeoutMs: 30_000 },
      );
      victim.kill("SIGKILL");
      await waitForExit(victim);
      survivor = spawnTs("tests/helpers/test-worker-process.ts", env);
      await store.waitForStatus(run.id, ["completed", "failed"], 60_000);
      expect((await store.run(run.id))?.failure).toBeNull();
      const keys = await logged(run.id);
      const batches = new Set(keys.map((key) => key.split(" ")[1]));
      expect(batches.size).toBe(1); // ctx.uuid() came back as recorded after the crash
      const runsOf = (i: number) => keys.filter((key) => key.startsWith(`charge-${i} `)).length;
      expect([1, 2, 3, 5, 6].map(runsOf)).toEqual([1, 1, 1, 1, 1]);
      expect(runsOf(4)).toBeGreaterThanOrEqual(2); // the iteration in flight at the kill runs again
      const result = (await store.terminalPayload(run.id))?.payload.result as { structuredContent: { charged: number[] } };
      expect(result.structuredContent.charged).toEqual([1, 2, 3, 4, 5, 6]);
      const steps = await store.sql<{ key: string; output: unknown; seq: number }[]>`
        SELECT key, output, seq FROM run_steps WHERE run_id = ${run.id} AND key NOT LIKE 'uuid:%' ORDER BY seq`;
      expect(steps.map((step) => [step.key, step.output, step.seq])).toEqual([
        ["charge", 1, 1],
        ["repeat:charge#2", 2, 2],
        ["repeat:charge#3", 3, 3],
        ["repeat:charge#4", 4, 4],
        ["repeat:charge#5", 5, 5],
        ["repeat:charge#6", 6, 6],
      ]);
    } finally {
      victim.kill("SIGKILL");
      survivor?.kill("SIGTERM");
      if (survivor) await waitForExit(survivor);
    }
  });

  it("numbers a sleep key in a loop apart from the step keys, across the parks", async () => {
    await store.startWorker([napLoop]);
    const run = await store.create(napLoop, {});
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.failure).toBeNull();
    const steps = await store.sql<{ key: string }[]>`SELECT key FROM run_steps WHERE run_id = ${run.id} ORDER BY seq`;
    expect(steps.map((step) => step.key)).toEqual([
      "tick",
      "sleep:nap",
      "repeat:tick#2",
      "sleep:repeat:nap#2",
      "repeat:tick#3",
      "sleep:repeat:nap#3",
    ]);
  });

  it("refuses the same key called again while its first call is pending (parallel calls are numbered by timing)", async () => {
    await store.startWorker([parallelSameKey]);
    const run = await store.create(parallelSameKey, {});
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.failure).toMatchObject({ code: "invalid_argument" });
    expect(String(done.failure?.message)).toMatch(
      /ctx\.step\("charge"\) was called for the 2nd time while other durable operations were pending/,
    );
    expect(String(done.failure?.message)).toMatch(/Give each parallel call its own key/);
  });

  it("keeps repeat: for the engine: a user key starting with it is refused", async () => {
    await store.startWorker([reservedKey]);
    const run = await store.create(reservedKey, {});
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("failed");
    expect(String(done.failure?.message)).toMatch(/ctx\.step key "repeat:charge#2" uses a reserved prefix/);
  });
});
