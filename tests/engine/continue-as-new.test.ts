import { sendSignalAsAdmin } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { badContinuation, childPerGeneration, napChild, poller, signalRelay } from "../fixtures/continue-as-new-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/**
 * ctx.continueAsNew (issue 32; review 3, E7): the same run — one task ID from start to end — starts a
 * fresh history with a new input, atomically, under the lease. A resume loads only the current
 * generation's history.
 */
const store = engineStore();

const logged = async (runId: string) =>
  (await store.sql<{ key: string }[]>`SELECT key FROM step_log WHERE run_id = ${runId} ORDER BY at`).map((row) => row.key);

async function runRow(id: string) {
  const [row] = await store.sql<{ generation: number; input: Record<string, unknown>; checkpoints: number }[]>`
    SELECT generation, input, checkpoints FROM runs WHERE id = ${id}`;
  return row;
}

describe("ctx.continueAsNew", () => {
  it("runs every generation as the same task, each on a fresh history that a resume loads alone", async () => {
    await store.startWorker([poller]);
    const run = await store.create(poller, { gen: 0, total: 4, per: 3 });
    await store.waitForStatus(run.id, ["completed", "failed"], 60_000);
    expect((await store.run(run.id))?.failure).toBeNull();
    const result = (await store.terminalPayload(run.id))?.payload.result as { structuredContent: { gen: number } };
    expect(result.structuredContent.gen).toBe(3);
    expect(await runRow(run.id)).toMatchObject({ generation: 3, input: { gen: 3, total: 4, per: 3 } });
    // Every tick of every generation ran exactly once (no crash here).
    const ticks = await logged(run.id);
    expect(ticks).toHaveLength(12);
    expect(new Set(ticks).size).toBe(12);
    // The history is the last generation's alone: its 3 ticks and 3 sleeps.
    const [steps] = await store.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM run_steps WHERE run_id = ${run.id}`;
    expect(steps?.n).toBe(6);
    // The timeline keeps every generation, each opened by its transition (with what it removed).
    const events = await store.sql<{ type: string; payload: Record<string, unknown> }[]>`
      SELECT type, payload FROM run_events WHERE run_id = ${run.id} ORDER BY id`;
    const transitions = events.filter((event) => event.type === "continued_as_new");
    expect(transitions.map((event) => event.payload.generation)).toEqual([1, 2, 3]);
    expect(transitions.map((event) => (event.payload.removed as { steps: number }).steps)).toEqual([6, 6, 6]);
    expect(events.at(-1)?.type).toBe("completed");
  });

  it("carries unconsumed signals over to the next generation and never delivers a consumed one again", async () => {
    const run = await store.create(signalRelay, { stage: 0 });
    expect(await sendSignalAsAdmin(store.sql, { runId: run.id, name: "go", payload: { n: 1 } })).toBe(true);
    expect(await sendSignalAsAdmin(store.sql, { runId: run.id, name: "go", payload: { n: 2 } })).toBe(true);
    await store.startWorker([signalRelay]);
    await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
    expect((await store.run(run.id))?.failure).toBeNull();
    const result = (await store.terminalPayload(run.id))?.payload.result as { structuredContent: unknown };
    expect(result.structuredContent).toEqual({ got: { received: true, payload: { n: 2 } }, third: { received: false } });
    expect((await runRow(run.id))?.generation).toBe(1);
  });

  it("lets the next generation reuse a child key: each generation's child is its own task", async () => {
    await store.startWorker([childPerGeneration, napChild]);
    const run = await store.create(childPerGeneration, { gen: 0, await: true });
    await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
    expect((await store.run(run.id))?.failure).toBeNull();
    const children = await store.sql<{ parent_key: string; input: { n: number }; status: string }[]>`
      SELECT parent_key, input, status FROM runs WHERE parent_run_id = ${run.id} ORDER BY created_at`;
    expect(children.map((child) => [child.parent_key, child.input.n, child.status])).toEqual([
      ["c", 0, "completed"],
      ["c@g1", 1, "completed"],
    ]);
  });

  it("is refused while a child of the generation has not ended: the run fails with the reason, nothing is moved", async () => {
    await store.startWorker([childPerGeneration, napChild]);
    const run = await store.create(childPerGeneration, { gen: 0, await: false });
    await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
    const failure = (await store.run(run.id))?.failure as { code: string; message: string };
    expect(failure.code).toBe("invalid_argument");
    expect(failure.message).toContain("child run(s) have not ended");
    expect((await runRow(run.id))?.generation).toBe(0);
  });

  it("refuses an input the workflow's own schema refuses, before anything is written", async () => {
    await store.startWorker([badContinuation]);
    const run = await store.create(badContinuation, { gen: 0 });
    await store.waitForStatus(run.id, ["completed", "failed"], 30_000);
    expect((await store.run(run.id))?.status).toBe("failed");
    expect(await runRow(run.id)).toMatchObject({ generation: 0, input: { gen: 0 } });
  });

  it("loses and repeats nothing beyond at-least-once when workers are SIGKILLed across continue-as-new transitions", async () => {
    const env = { DATABASE_URL: store.url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "200" };
    const workers = [spawnTs("tests/helpers/continue-as-new-worker-process.ts", env)];
    try {
      // Each tick takes 150 ms after logging, so a kill right after a log lands mid-step or mid-transition.
      const run = await store.create(poller, { gen: 0, total: 6, per: 2, slowMs: 150 });
      for (const gen of [1, 3]) {
        await waitFor(
          () => logged(run.id),
          (keys) => keys.includes(`tick-${gen}-1`),
          { describe: `generation ${gen}'s last tick to start`, timeoutMs: 30_000 },
        );
        const victim = workers.at(-1);
        victim?.kill("SIGKILL");
        if (victim) await waitForExit(victim);
        workers.push(spawnTs("tests/helpers/continue-as-new-worker-process.ts", env));
      }
      await store.waitForStatus(run.id, ["completed", "failed"], 60_000);
      expect((await store.run(run.id))?.failure).toBeNull();
      const ticks = await logged(run.id);
      const runsOf = (key: string) => ticks.filter((tick) => tick === key).length;
      for (let gen = 0; gen < 6; gen++) {
        for (let i = 0; i < 2; i++) {
          const n = runsOf(`tick-${gen}-${i}`);
          // Nothing lost; only the tick in flight at a kill may run twice (at-least-once).
          expect(n, `tick-${gen}-${i}`).toBeGreaterThanOrEqual(1);
          expect(n, `tick-${gen}-${i}`).toBeLessThanOrEqual(gen === 1 || gen === 3 ? 2 : 1);
        }
      }
      expect(await runRow(run.id)).toMatchObject({ generation: 5, input: { gen: 5 } });
      const transitions = await store.events(run.id, "continued_as_new");
      // Each transition happened once: a kill before its commit left nothing, one after it left it done.
      expect(transitions.map((event) => event.payload.generation)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      for (const worker of workers) worker.kill("SIGKILL");
      await Promise.all(workers.map((worker) => waitForExit(worker)));
    }
  });

  it("neither loses nor doubles a transition whose worker is SIGKILLed inside its transaction", async () => {
    const env = { DATABASE_URL: store.url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "200" };
    const workers = [spawnTs("tests/helpers/continue-as-new-worker-process.ts", env)];
    // Holding approval_decisions stops the first transition inside its transaction, after it has
    // locked the run and before it commits (ops/continue-as-new.ts moves approvals second).
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holding = store.sql.begin(async (tx) => {
      await tx`LOCK TABLE approval_decisions IN ACCESS EXCLUSIVE MODE`;
      await released;
    });
    try {
      const run = await store.create(poller, { gen: 0, total: 3, per: 1 });
      const blocked = () =>
        store.sql<{ pid: number }[]>`
          SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE approval_decisions%'`;
      await waitFor(blocked, (rows) => rows.length === 1, { describe: "the transition to wait inside its transaction" });
      const victim = workers[0];
      victim?.kill("SIGKILL");
      if (victim) await waitForExit(victim);
      release();
      await holding;
      // The dead worker's backend finishes its statement, finds no client and rolls the transaction back.
      await waitFor(blocked, (rows) => rows.length === 0, { describe: "the orphaned transaction to end" });
      await waitFor(
        () => store.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%UPDATE approval_decisions%' AND state <> 'idle' AND pid <> pg_backend_pid()`,
        (rows) => rows[0]?.n === 0,
        { describe: "no transition in flight" },
      );
      expect((await runRow(run.id))?.generation).toBe(0);
      expect(await store.events(run.id, "continued_as_new")).toHaveLength(0);
      workers.push(spawnTs("tests/helpers/continue-as-new-worker-process.ts", env));
      await store.waitForStatus(run.id, ["completed", "failed"], 60_000);
      expect((await store.run(run.id))?.failure).toBeNull();
      // The tick before the kill was recorded, so it was replayed, not run again.
      expect(await logged(run.id)).toEqual(["tick-0-0", "tick-1-0", "tick-2-0"]);
      const transitions = await store.events(run.id, "continued_as_new");
      expect(transitions.map((event) => event.payload.generation)).toEqual([1, 2]);
      expect((await runRow(run.id))?.generation).toBe(2);
    } finally {
      release();
      await holding.catch(() => {});
      for (const worker of workers) worker.kill("SIGKILL");
      await Promise.all(workers.map((worker) => waitForExit(worker)));
    }
  });
});
