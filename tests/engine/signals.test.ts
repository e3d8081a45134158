import { sendSignal } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { signalThenProvision } from "../fixtures/engine-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/** A signal buffered before its wait survives a lost attempt (review F3). */
const store = engineStore();

const spawnWorker = () =>
  spawnTs("tests/helpers/test-worker-process.ts", {
    DATABASE_URL: store.url,
    RUNIFOLD_LEASE_MS: "1500",
    RUNIFOLD_POLL_MS: "100",
  });

describe("signals across a lost attempt", () => {
  it("delivers a signal sent while the run was queued to the next attempt after a SIGKILL, and the next signal to the next wait", async () => {
    const run = await store.create(signalThenProvision, { provisionMs: 3_000 });
    expect(await sendSignal(store.sql, { runId: run.id, name: "approved", payload: { by: "alice" } })).toBe(true);
    const victim = spawnWorker();
    let survivor: ReturnType<typeof spawnWorker> | undefined;
    try {
      await waitFor(
        () => store.stepRuns(run.id, "provision"),
        (n) => n === 1,
        { describe: "the provision step to start", timeoutMs: 30_000 },
      );
      victim.kill("SIGKILL");
      await waitForExit(victim);
      survivor = spawnWorker();
      await waitFor(
        () => store.sql`SELECT wait_detail FROM runs WHERE id = ${run.id} AND status = 'waiting_signal'`,
        (rows) => rows.length === 1,
        { describe: "the run to wait for its second signal", timeoutMs: 30_000 },
      );
      expect(await store.stepRuns(run.id, "provision")).toBe(2);
      expect(await sendSignal(store.sql, { runId: run.id, name: "approved", payload: { by: "bob" } })).toBe(true);
      const done = await store.waitForStatus(run.id, ["completed", "failed"]);
      expect(done.status).toBe("completed");
      expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
        result: { structuredContent: { first: "alice", second: "bob" } },
      });
      expect(done.lost_attempts).toBe(0);
    } finally {
      victim.kill("SIGKILL");
      survivor?.kill("SIGTERM");
      if (survivor) await waitForExit(survivor);
    }
  });
});
