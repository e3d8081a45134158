import { cancelRunForTenant } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { trip } from "../fixtures/compensation-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { subscribe } from "../webhooks/support";
import { engineStore, TENANT } from "./support/harness";

/**
 * Compensation of a cancelled run (issue 32, migration 0041): the task is `cancelled` when the cancel
 * returns (both MCP eras require it), and the workflow's onFailure runs durably in a compensation run
 * of its own (origin `compensation`, `compensates_run_id`), which a worker SIGKILLed mid-undo resumes.
 */
const store = engineStore();

const logged = (runId: string) =>
  store.sql<{ key: string }[]>`SELECT key FROM step_log WHERE run_id = ${runId} ORDER BY at`.then((rows) =>
    rows.map((row) => row.key),
  );

const compensationOf = (runId: string) =>
  waitFor(
    () => store.sql<{ id: string; origin: string; created_by_key_id: string | null }[]>`
      SELECT id, origin, created_by_key_id FROM runs WHERE compensates_run_id = ${runId}`,
    (rows) => rows.length > 0,
    { describe: `a compensation run of ${runId}` },
  ).then((rows) => rows[0] as NonNullable<(typeof rows)[0]>);

async function cancelWhenParked(runId: string) {
  await store.waitForStatus(runId, "waiting_signal", 30_000);
  const cancelled = await cancelRunForTenant(store.sql, { runId, tenantId: TENANT, reason: "Cancelled by client" });
  expect(cancelled.outcome).toBe("cancelled");
  expect((await store.run(runId))?.status).toBe("cancelled"); // terminal before the cancel answers
}

describe("onFailure on cancellation", () => {
  it("compensates a cancelled run in a compensation run of its own; the task stays cancelled", async () => {
    await store.startWorker([trip]);
    const run = await store.create(trip, { waitForCancel: true });
    await cancelWhenParked(run.id);
    const compensation = await compensationOf(run.id);
    expect(compensation).toMatchObject({ origin: "compensation", created_by_key_id: null });
    const done = await store.waitForStatus(compensation.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(await logged(compensation.id)).toEqual([
      "seen cancelled cancelled -",
      "undo charge C20 start",
      "undo charge C20 end",
      "undo charge C10 start",
      "undo charge C10 end",
      "undo hotel H1",
    ]);
    expect(await logged(run.id)).toEqual(["hotel", "charge 10", "charge 20"]); // the flight never ran
    expect((await store.run(run.id))?.status).toBe("cancelled");
    expect((await store.terminalPayload(run.id))?.type).toBe("cancelled");
    const lines = await store.events(run.id, "log");
    expect(lines.map((line) => line.payload.message)).toContain(`onFailure: compensating in run ${compensation.id}`);
  });

  it("carries on a failure's compensation cancelled midway without repeating the steps it had recorded", async () => {
    await store.startWorker([trip]);
    const run = await store.create(trip, { slowUndoMs: 1_500 });
    await waitFor(
      () => logged(run.id),
      (keys) => keys.includes("undo charge C20 start"),
      { describe: "the failure's compensation to start" },
    );
    await cancelRunForTenant(store.sql, { runId: run.id, tenantId: TENANT });
    const compensation = await compensationOf(run.id);
    const done = await store.waitForStatus(compensation.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect((await store.run(run.id))?.status).toBe("cancelled");
    // `seen` was recorded by the cancelled run: replayed here, not run again; the undo in flight runs again.
    expect(await logged(compensation.id)).toEqual([
      "undo charge C20 start",
      "undo charge C20 end",
      "undo charge C10 start",
      "undo charge C10 end",
      "undo hotel H1",
    ]);
    expect((await logged(run.id)).filter((key) => key.startsWith("seen"))).toEqual(["seen failed step_failed flight"]);
  });

  it("announces the cancelled task to webhooks, and nothing of its compensation run (no client's task)", async () => {
    await subscribe(store.sql, TENANT, "http://127.0.0.1:9/hooks", ["task.cancelled", "task.completed", "task.failed"]);
    try {
      await store.startWorker([trip]);
      const run = await store.create(trip, { waitForCancel: true });
      await cancelWhenParked(run.id);
      const compensation = await compensationOf(run.id);
      await store.waitForStatus(compensation.id, "completed");
      const events = await store.sql<{ task_id: string; event: string }[]>`
        SELECT task_id, event FROM webhook_deliveries WHERE task_id IN (${run.id}, ${compensation.id})`;
      expect(events).toEqual([{ task_id: run.id, event: "task.cancelled" }]);
    } finally {
      await store.sql`DELETE FROM webhook_subscriptions WHERE tenant_id = ${TENANT}`;
    }
  });

  it("queues no compensation for a run cancelled before any worker started it", async () => {
    const run = await store.create(trip, {});
    await cancelRunForTenant(store.sql, { runId: run.id, tenantId: TENANT });
    await store.startWorker([trip]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await store.sql`SELECT 1 FROM runs WHERE compensates_run_id = ${run.id}`).toHaveLength(0);
    expect(await logged(run.id)).toEqual([]);
  });

  it("resumes a cancelled run's compensation after its worker is SIGKILLed mid-undo", async () => {
    const env = { DATABASE_URL: store.url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "200" };
    const victim = spawnTs("tests/helpers/compensation-worker-process.ts", env);
    let survivor: ReturnType<typeof spawnTs> | undefined;
    try {
      const run = await store.create(trip, { waitForCancel: true, slowUndoMs: 6_000 });
      await cancelWhenParked(run.id);
      const compensation = await compensationOf(run.id);
      await waitFor(
        () => logged(compensation.id),
        (keys) => keys.includes("undo charge C20 start"),
        { describe: "the first compensation to start", timeoutMs: 30_000 },
      );
      victim.kill("SIGKILL");
      await waitForExit(victim);
      survivor = spawnTs("tests/helpers/compensation-worker-process.ts", env);
      const done = await store.waitForStatus(compensation.id, ["completed", "failed"], 60_000);
      expect(done.status).toBe("completed");
      const keys = await logged(compensation.id);
      const count = (key: string) => keys.filter((k) => k === key).length;
      expect(count("seen cancelled cancelled -")).toBe(1);
      expect(count("undo charge C20 start")).toBe(2); // in flight at the kill: at least once
      expect([count("undo charge C20 end"), count("undo charge C10 start"), count("undo hotel H1")]).toEqual([1, 1, 1]);
      expect((await store.run(run.id))?.status).toBe("cancelled");
    } finally {
      victim.kill("SIGKILL");
      survivor?.kill("SIGTERM");
      if (survivor) await waitForExit(survivor);
    }
  });
});
