import { createRegistry, createWorker, defineWorkflow, silentLogger } from "@runifold/sdk";
import { createDb } from "@runifold/store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { logStep } from "../fixtures/engine-workflows";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";
import { startTcpProxy } from "./support/tcp-proxy";

/** A partitioned worker gives its run up locally once the lease has expired (review F11). */
const store = engineStore();
const LEASE_MS = 2_000;

const longStep = defineWorkflow({
  name: "long-step",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.step("hang", async ({ signal }) => {
      await logStep(ctx.runId, `hang-${ctx.attempt}`);
      // The attempt that takes over from the partitioned worker finishes at once.
      if (ctx.attempt > 1) return "second";
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20_000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          void logStep(ctx.runId, "hang-aborted").then(() => resolve());
        });
      });
      return "first";
    });
    return { content: [] };
  },
});

describe("a worker cut off from the store", () => {
  it("aborts its step's signal within the lease, and another worker takes the run over", { timeout: 60_000 }, async () => {
    const url = new URL(store.url);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    const partitioned = createDb(url.toString(), { max: 4, name: "partitioned-worker" });
    const worker = createWorker({
      sql: partitioned.sql,
      registry: createRegistry([longStep]),
      logger: silentLogger,
      leaseMs: LEASE_MS,
      pollMs: 100,
      lastResortHandlers: false,
    });
    await worker.start();
    try {
      const run = await store.create(longStep, {});
      await waitFor(
        () => store.stepRuns(run.id, "hang-1"),
        (n) => n === 1,
        { describe: "the step to start on the worker behind the proxy" },
      );
      const cutAt = Date.now();
      proxy.partition();
      await waitFor(
        () => store.stepRuns(run.id, "hang-aborted"),
        (n) => n === 1,
        { describe: "the partitioned worker to abort its step", timeoutMs: LEASE_MS * 3 },
      );
      expect(Date.now() - cutAt).toBeLessThan(LEASE_MS + 1_000);
      await waitFor(
        () => worker.activeRuns(),
        (n) => n === 0,
        { describe: "the partitioned worker to let the run go" },
      );
      await store.startWorker([longStep], { leaseMs: LEASE_MS });
      const done = await store.waitForStatus(run.id, "completed");
      expect(done.lost_attempts).toBe(0);
      proxy.heal();
    } finally {
      proxy.heal();
      await worker.stop(500);
      await partitioned.sql.end({ timeout: 1 });
      await proxy.close();
    }
  });
});
