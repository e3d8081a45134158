import path from "node:path";
import { describe, expect, it } from "vitest";
import { signalTimeout } from "../fixtures/engine-workflows";
import { ROOT, spawnTs, waitForExit } from "../helpers/processes";
import { engineStore } from "./support/harness";

/** One clock: signal deadlines, timers and claims all use the database's time (review F5). */
const store = engineStore();
const PRELOAD = `--import=${path.join(ROOT, "tests/engine/support/skewed-clock.mjs")}`;

describe("a worker whose clock is skewed", () => {
  it.each([-2_000, 2_000])("times a signal wait and a sleep out once, with the worker's clock off by %i ms", async (skewMs) => {
    const worker = spawnTs("tests/helpers/test-worker-process.ts", {
      DATABASE_URL: store.url,
      RUNIFOLD_LEASE_MS: "5000",
      RUNIFOLD_POLL_MS: "1000",
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${PRELOAD}`.trim(),
      RUNIFOLD_TEST_CLOCK_SKEW_MS: String(skewMs),
    });
    try {
      const run = await store.create(signalTimeout, { timeoutMs: 300 });
      const done = await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
      expect(done.status).toBe("completed");
      expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
        result: { structuredContent: { received: false } },
      });
      // The first claim, the one at the signal's deadline and the one at the sleep's wake time.
      expect((await store.events(run.id, "leased")).length).toBe(3);
    } finally {
      worker.kill("SIGTERM");
      await waitForExit(worker);
    }
  });
});
