import { cancelRun, defineWorkflow } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dangling, logStep } from "../fixtures/engine-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/** Dangling workflow code is contained (review F4). */
const store = engineStore();

const swallowsSuspension = defineWorkflow({
  name: "swallows-suspension",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    try {
      await ctx.sleep("cool-off", 300);
    } catch {
      // A workflow that wraps everything in try/catch and carries on.
    }
    await ctx.step("email", async () => {
      await logStep(ctx.runId, "email");
      return true;
    });
    return { content: [] };
  },
});

const parallelWithSleep = defineWorkflow({
  name: "parallel-with-sleep",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await Promise.all([
      ctx.step("slow", async ({ signal }) => {
        await logStep(ctx.runId, "slow");
        await new Promise<void>((resolve) => {
          const aborted = () => {
            clearTimeout(timer);
            void logStep(ctx.runId, "slow-aborted").then(() => resolve());
          };
          // The first execution ends only by the abort the park sends; the resumed one at once.
          const timer = setTimeout(resolve, ctx.attempt === 1 ? 60_000 : 0);
          // The park can abort the signal while the log write above is still in flight (a loaded
          // machine): a listener added to an already-aborted signal never fires, so check first.
          if (signal.aborted) aborted();
          else signal.addEventListener("abort", aborted, { once: true });
        });
        return 1;
      }),
      ctx.sleep("nap", 200),
    ]);
    return { content: [] };
  },
});

describe("dangling workflow code", () => {
  it("never runs a step body after the run parked, even when the suspension is swallowed", async () => {
    await store.startWorker([swallowsSuspension]);
    const run = await store.create(swallowsSuspension, {});
    await store.waitForStatus(run.id, "completed");
    expect(await store.stepRuns(run.id, "email")).toBe(1);
  });

  it("aborts a sibling step's signal when a Promise.all sleep parks the run", async () => {
    await store.startWorker([parallelWithSleep]);
    const run = await store.create(parallelWithSleep, {});
    await waitFor(
      () => store.stepRuns(run.id, "slow-aborted"),
      (n) => n >= 1,
      { describe: "the sibling step to see its signal fire when the run parked" },
    );
    await store.waitForStatus(run.id, "completed");
  });

  it("keeps the worker process alive through un-awaited progress, cancels and an unhandled rejection", {
    timeout: 120_000,
  }, async () => {
    const worker = spawnTs("tests/helpers/test-worker-process.ts", {
      DATABASE_URL: store.url,
      RUNIFOLD_LEASE_MS: "5000",
      RUNIFOLD_POLL_MS: "50",
      RUNIFOLD_LOG_LEVEL: "error",
    });
    try {
      const runs: string[] = [];
      for (let i = 0; i < 50; i++) {
        const run = await store.create(dangling, { leak: false });
        runs.push(run.id);
        if (i % 3 === 0) setTimeout(() => void cancelRun(store.sql, { runId: run.id }), Math.random() * 40);
      }
      const leaky = await store.create(dangling, { leak: true });
      const final = await waitFor(
        () => store.sql<{ status: string }[]>`SELECT status FROM runs WHERE id IN ${store.sql([...runs, leaky.id])}`,
        (rows) => rows.every((row) => ["completed", "cancelled", "failed"].includes(row.status)),
        { describe: "every run to end", timeoutMs: 60_000 },
      );
      expect(final.filter((row) => row.status === "failed")).toHaveLength(1);
      const leakDone = await store.run(leaky.id);
      expect(leakDone?.failure).toMatchObject({ code: "unhandled_error" });
      expect(String(leakDone?.failure?.message)).toMatch(/nobody awaits this/);
      const pids = await store.sql<{ pid: number }[]>`
        SELECT DISTINCT (payload->'result'->'structuredContent'->>'pid')::int AS pid FROM run_events
        WHERE type = 'completed' AND run_id IN ${store.sql(runs)}`;
      expect(pids.map((p) => p.pid)).toEqual([worker.pid]);
      expect(worker.exitCode).toBeNull();
      // The same process still serves new runs.
      const after = await store.create(dangling, { leak: false });
      await store.waitForStatus(after.id, "completed");
      expect(worker.exitCode).toBeNull();
    } finally {
      worker.kill("SIGTERM");
      await waitForExit(worker);
    }
  });
});
