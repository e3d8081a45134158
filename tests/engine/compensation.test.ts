import { defineWorkflow } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { leaky, trip } from "../fixtures/compensation-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/**
 * Compensation (issue 32): a workflow's onFailure runs durably when the run fails — its steps are
 * checkpointed under `onfailure:` keys — and the run still ends failed with its original cause.
 * saga(ctx) undoes the body's completed steps in reverse.
 */
const store = engineStore();

const logged = (runId: string) =>
  store.sql<{ key: string }[]>`SELECT key FROM step_log WHERE run_id = ${runId} ORDER BY at`.then((rows) =>
    rows.map((row) => row.key),
  );

const BODY = ["hotel", "charge 10", "charge 20", "flight"];

describe("onFailure and saga", () => {
  it("undoes the completed steps in reverse, then fails the run with the body's cause", async () => {
    await store.startWorker([trip]);
    const run = await store.create(trip, {});
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.failure).toMatchObject({ code: "step_failed", step: "flight", message: "no seats left" });
    expect(done.failure).not.toHaveProperty("compensation");
    expect(await logged(run.id)).toEqual([
      ...BODY,
      "seen failed step_failed flight",
      "undo charge C20 start",
      "undo charge C20 end",
      "undo charge C10 start",
      "undo charge C10 end",
      "undo hotel H1",
    ]);
    const steps = await store.sql<{ key: string }[]>`
      SELECT key FROM run_steps WHERE run_id = ${run.id} AND key LIKE 'onfailure%' ORDER BY completed_at, key`;
    expect(steps.map((step) => step.key).sort()).toEqual(
      ["onfailure", "onfailure:seen", "onfailure:undo:charge", "onfailure:undo:hotel", "onfailure:undo:repeat:charge#2"].sort(),
    );
    // The client's terminal event is the body's failure, written once, after the compensation.
    const terminal = await store.terminalPayload(run.id);
    expect(terminal?.type).toBe("failed");
  });

  it("keeps the original cause when a compensation fails, and records the hook's failure beside it", async () => {
    await store.startWorker([trip]);
    const run = await store.create(trip, { failUndo: true });
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("failed");
    expect(done.failure).toMatchObject({
      code: "step_failed",
      step: "flight",
      compensation: { code: "step_failed", step: "onfailure:undo:hotel", message: "the hotel refuses to cancel" },
    });
    // Every compensation ran even though one failed.
    expect((await logged(run.id)).filter((key) => key.startsWith("undo"))).toHaveLength(5);
    const lines = await store.events(run.id, "log");
    expect(lines.map((line) => line.payload.message)).toContain("onFailure failed");
  });

  it("refuses a body step key in the hook's namespace", async () => {
    const squatter = defineWorkflow({
      name: "comp-squatter",
      version: 1,
      input: z.object({}),
      async run(ctx) {
        await ctx.step("onfailure:undo:x", () => 1);
        return { content: [] };
      },
      async onFailure() {},
    });
    await store.startWorker([squatter]);
    const run = await store.create(squatter, {});
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.failure).toMatchObject({ code: "invalid_argument" });
    expect(String(done.failure?.message)).toMatch(/reserved for onFailure/);
  });

  it("refuses the hook's keys in a workflow without a hook too, as any reserved prefix", async () => {
    const noHook = defineWorkflow({
      name: "comp-no-hook-squatter",
      version: 1,
      input: z.object({ key: z.string() }),
      async run(ctx, { key }) {
        await ctx.step(key, () => 1);
        return { content: [] };
      },
    });
    await store.startWorker([noHook]);
    for (const key of ["onfailure", "onfailure:undo:x"]) {
      const run = await store.create(noHook, { key });
      const done = await store.waitForStatus(run.id, ["completed", "failed"]);
      expect(done.status).toBe("failed");
      expect(done.failure).toMatchObject({ code: "invalid_argument" });
      expect(String(done.failure?.message)).toMatch(/ctx\.step key "onfailure(:undo:x)?" is reserved for onFailure's history/);
    }
    const fine = await store.create(noHook, { key: "onfailures" });
    expect((await store.waitForStatus(fine.id, ["completed", "failed"])).status).toBe("completed");
  });

  it("runs the hook in the next attempt when workflow code leaked a rejection, across a durable sleep of the hook", async () => {
    const worker = spawnTs("tests/helpers/compensation-worker-process.ts", { DATABASE_URL: store.url, RUNIFOLD_POLL_MS: "100" });
    try {
      const run = await store.create(leaky, {});
      const done = await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
      expect(done.failure).toMatchObject({ code: "unhandled_error" });
      expect(done.failure).not.toHaveProperty("compensation");
      expect(await logged(run.id)).toEqual(["reserve", "release R1 after unhandled_error"]);
      const released = await store.events(run.id, "released");
      expect(released.map((event) => event.payload.reason)).toContain("compensation");
      const keys = await store.sql<
        { key: string }[]
      >`SELECT key FROM run_steps WHERE run_id = ${run.id} AND key LIKE '%onfailure%'`;
      expect(keys.map((row) => row.key).sort()).toEqual(["onfailure", "onfailure:undo:reserve", "sleep:onfailure:cool-off"]);
    } finally {
      worker.kill("SIGTERM");
      await waitForExit(worker);
    }
  });

  it("resumes a compensation after its worker is SIGKILLed mid-undo: nothing lost, nothing finished run again", async () => {
    const env = { DATABASE_URL: store.url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "200" };
    const victim = spawnTs("tests/helpers/compensation-worker-process.ts", env);
    let survivor: ReturnType<typeof spawnTs> | undefined;
    try {
      const run = await store.create(trip, { slowUndoMs: 6_000 });
      await waitFor(
        () => logged(run.id),
        (keys) => keys.includes("undo charge C20 start"),
        { describe: "the first compensation to start", timeoutMs: 30_000 },
      );
      victim.kill("SIGKILL");
      await waitForExit(victim);
      expect((await store.run(run.id))?.status).toBe("leased"); // not terminal while compensating
      survivor = spawnTs("tests/helpers/compensation-worker-process.ts", { ...env });
      const done = await store.waitForStatus(run.id, ["completed", "failed"], 60_000);
      expect(done.status).toBe("failed");
      expect(done.failure).toMatchObject({ code: "step_failed", step: "flight", message: "no seats left" });
      expect(done.failure).not.toHaveProperty("compensation");
      const keys = await logged(run.id);
      const count = (key: string) => keys.filter((k) => k === key).length;
      // The body never ran again: its failure was recorded before the hook started.
      expect(BODY.map(count)).toEqual([1, 1, 1, 1]);
      expect(count("seen failed step_failed flight")).toBe(1); // checkpointed before the kill
      expect(count("undo charge C20 start")).toBe(2); // in flight at the kill: at least once
      expect(count("undo charge C20 end")).toBe(1);
      expect([count("undo charge C10 start"), count("undo hotel H1")]).toEqual([1, 1]);
      expect(await store.sql`SELECT 1 FROM run_events WHERE run_id = ${run.id} AND type = 'failed'`).toHaveLength(1);
    } finally {
      victim.kill("SIGKILL");
      survivor?.kill("SIGTERM");
      if (survivor) await waitForExit(survivor);
    }
  });
});
