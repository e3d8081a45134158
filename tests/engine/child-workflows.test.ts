import {
  ChildWorkflowFailed,
  cancelRunForTenant,
  defineWorkflow,
  readRunHistory,
  sendSignal,
  WorkflowFailure,
} from "@runifold/sdk";
import { replayHistory } from "@runifold/sdk/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { childPair, logStep } from "../fixtures/engine-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { engineStore, TENANT } from "./support/harness";

/**
 * Child workflows (issue 32, ctx.child): a child is a run of the same tenant with its own task ID,
 * linked to its parent; `result()` parks the parent until the child ends; a failed or cancelled child
 * is a ChildWorkflowFailed the parent may catch; replays never start a second child; cancelling the
 * parent cancels its unfinished children; a Promise.all fan-out works.
 */
const store = engineStore();

/** Doubles n in a step that takes a moment, so the parent is parked before the child ends. */
const double = defineWorkflow({
  name: "double",
  version: 1,
  input: z.object({ n: z.number() }),
  async run(ctx, { n }) {
    const value = await ctx.step("double", async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await logStep(ctx.runId, "double");
      return n * 2;
    });
    return { content: [{ type: "text", text: String(value) }], structuredContent: { value } };
  },
});

const failing = defineWorkflow({
  name: "failing-child",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.step("wait", () => new Promise((resolve) => setTimeout(resolve, 100)));
    throw new WorkflowFailure("the card was declined", -32001, { card: "4242" });
  },
});

/** Waits for a signal that never comes: a child that is still running when its parent is cancelled. */
const waiting = defineWorkflow({
  name: "waiting-child",
  version: 1,
  input: z.object({ depth: z.number() }),
  async run(ctx, { depth }) {
    if (depth > 0) await ctx.child(waitingRef, { depth: depth - 1 }).result();
    await ctx.waitForSignal("never");
    return { content: [] };
  },
});
const waitingRef = { name: "waiting-child", version: 1 };

const parent = defineWorkflow({
  name: "parent",
  version: 1,
  input: z.object({ n: z.number() }),
  async run(ctx, { n }) {
    const child = ctx.child(double, { n });
    const result = await child.result();
    return { content: [], structuredContent: { child: await child.taskId(), result: result.structuredContent ?? null } };
  },
});

const catching = defineWorkflow({
  name: "catching-parent",
  version: 1,
  input: z.object({ catch: z.boolean() }),
  async run(ctx, input) {
    try {
      await ctx.child(failing, {}).result();
      return { content: [], structuredContent: { caught: null } };
    } catch (error) {
      if (!input.catch || !(error instanceof ChildWorkflowFailed)) throw error;
      const { taskId, workflow, status, error: childError, name } = error;
      return { content: [], structuredContent: { caught: { taskId, workflow, status, error: childError ?? null, name } } };
    }
  },
});

/** Starts a child, then parks for a signal, then a step its first worker never finishes, then awaits the child. */
let hang = true;
const resuming = defineWorkflow({
  name: "resuming-parent",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const child = ctx.child(double, { n: 21 });
    await ctx.waitForSignal("go");
    await ctx.step("slow", async ({ signal }) => {
      await logStep(ctx.runId, "slow");
      if (hang) await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    });
    const result = await child.result();
    return { content: [], structuredContent: { child: await child.taskId(), result: result.structuredContent ?? null } };
  },
});

const cancelledChild = defineWorkflow({
  name: "cancelled-child-parent",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    try {
      await ctx.child(waiting, { depth: 0 }).result();
      return { content: [] };
    } catch (error) {
      if (!(error instanceof ChildWorkflowFailed)) throw error;
      return { content: [], structuredContent: { status: error.status, reason: error.reason ?? null } };
    }
  },
});

/** Three children of one workflow at once (each its own key), then a signal, so the fan-out is replayed. */
const fanOut = defineWorkflow({
  name: "fan-out",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const handles = [1, 2, 3].map((n) => ctx.child(double, { n }, { key: `item-${n}` }));
    const results = await Promise.all(handles.map((handle) => handle.result()));
    await ctx.waitForSignal("go");
    const values = results.map((result) => result.structuredContent?.value);
    return { content: [], structuredContent: { values, children: await Promise.all(handles.map((h) => h.taskId())) } };
  },
});

const unkeyedFanOut = defineWorkflow({
  name: "unkeyed-fan-out",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await Promise.all([ctx.child(double, { n: 1 }), ctx.child(double, { n: 2 })].map((handle) => handle.result()));
    return { content: [] };
  },
});

/** Ends at once: many of them, on two workers, end close to their parents' parks. */
const instant = defineWorkflow({
  name: "instant",
  version: 1,
  input: z.object({}),
  async run() {
    return { content: [], structuredContent: { ok: true } };
  },
});
const quickParent = defineWorkflow({
  name: "quick-parent",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    for (const key of ["a", "b", "c"]) await ctx.child(instant, {}, { key }).result();
    return { content: [] };
  },
});

/** Starts a child and returns without awaiting anything of it (fire and forget). */
const forgetful = defineWorkflow({
  name: "forgetful-parent",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    ctx.child(double, { n: 5 });
    return { content: [] };
  },
});

async function children(parentId: string) {
  return store.sql<{ id: string; tenant_id: string; parent_key: string; status: string }[]>`
    SELECT id, tenant_id, parent_key, status FROM runs WHERE parent_run_id = ${parentId} ORDER BY parent_key`;
}

async function resultOf(id: string) {
  return (await store.terminalPayload(id))?.payload.result as { structuredContent: Record<string, unknown> };
}

describe("child workflows", () => {
  it("starts the child as its own run of the tenant, parks the parent, and returns the child's result", async () => {
    await store.startWorker([parent, double]);
    const run = await store.create(parent, { n: 21 });
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.failure).toBeNull();
    const [child, ...more] = await children(run.id);
    expect(more).toHaveLength(0);
    expect(child).toMatchObject({ tenant_id: TENANT, parent_key: "double", status: "completed" });
    expect(await resultOf(run.id)).toMatchObject({ structuredContent: { child: child?.id, result: { value: 42 } } });
    // The parent waited parked (no slot) and the child's end woke it.
    expect(await store.events(run.id, "waiting_children")).toEqual([{ payload: { taskIds: [child?.id] } }]);
    expect(await store.events(run.id, "child_ended")).toEqual([{ payload: { taskId: child?.id, status: "completed" } }]);
    expect(await store.events(run.id, "child_started")).toEqual([
      { payload: { key: "double", taskId: child?.id, workflow: "double@1" } },
    ]);
    const steps = await store.sql<{ key: string; seq: number | null }[]>`
      SELECT key, seq FROM run_steps WHERE run_id = ${run.id} ORDER BY seq`;
    expect(steps).toEqual([
      { key: "child:double", seq: 0 },
      { key: "child-result:double", seq: 1 },
    ]);
  });

  it("surfaces a failed child as ChildWorkflowFailed, which the parent may catch or let fail the run", async () => {
    await store.startWorker([catching, failing]);
    const caught = await store.create(catching, { catch: true });
    const uncaught = await store.create(catching, { catch: false });
    expect((await store.waitForStatus(caught.id, ["completed", "failed"])).status).toBe("completed");
    const [child] = await children(caught.id);
    expect((await resultOf(caught.id)).structuredContent.caught).toEqual({
      taskId: child?.id,
      workflow: "failing-child@1",
      status: "failed",
      error: { code: -32001, message: "the card was declined", data: { card: "4242" } },
      name: "ChildWorkflowFailed",
    });
    const failed = await store.waitForStatus(uncaught.id, ["completed", "failed"]);
    expect(failed.status).toBe("failed");
    const [other] = await children(uncaught.id);
    expect(failed.failure).toMatchObject({ code: "child_failed", name: "ChildWorkflowFailed" });
    expect(String(failed.failure?.message)).toContain(`child task ${other?.id} (failing-child@1) failed: the card was declined`);
  });

  it("never starts a second child when the parent resumes after a signal or after its worker gave it up", async () => {
    hang = true;
    const first = await store.startWorker([resuming, double], { leaseMs: 1_500 });
    const run = await store.create(resuming, {});
    await store.waitForStatus(run.id, "waiting_signal");
    // Started and not awaited before the park for the signal: recorded before the park.
    expect(await store.events(run.id, "child_started")).toHaveLength(1);
    expect(await sendSignal(store.sql, { runId: run.id, name: "go", payload: null })).toBe(true);
    await expect.poll(() => store.stepRuns(run.id, "slow"), { timeout: 10_000 }).toBe(1);
    // The child is done (so stopping the worker cannot re-run its own step, which is at-least-once).
    const [child] = await children(run.id);
    await store.waitForStatus(child?.id as string, "completed");
    // Abandoned in the middle of the step: the next worker replays the start from the history.
    await first.stop(0);
    hang = false;
    await store.startWorker([resuming, double], { leaseMs: 1_500 });
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.failure).toBeNull();
    expect(await store.stepRuns(run.id, "slow")).toBe(2);
    const started = await children(run.id);
    expect(started).toHaveLength(1);
    expect(await store.stepRuns(started[0]?.id as string, "double")).toBe(1);
    expect(await resultOf(run.id)).toMatchObject({ structuredContent: { child: started[0]?.id, result: { value: 42 } } });
    expect(await store.events(run.id, "child_started")).toHaveLength(1);
  });

  it("keeps one set of children when the worker running parent and children is SIGKILLed mid-step", async () => {
    const env = { DATABASE_URL: store.url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "200" };
    const victim = spawnTs("tests/helpers/test-worker-process.ts", env);
    let survivor: ReturnType<typeof spawnTs> | undefined;
    try {
      const run = await store.create(childPair, { slowMs: 3_000 });
      const logged = async (id: string) =>
        (await store.sql<{ key: string }[]>`SELECT key FROM step_log WHERE run_id = ${id}`).map((row) => row.key);
      // Every step is in flight in the victim: the parent's own, and each child's.
      await expect
        .poll(
          async () => {
            const started = await children(run.id);
            const keys = [...(await logged(run.id)), ...(await Promise.all(started.map((child) => logged(child.id)))).flat()];
            return keys.sort();
          },
          { timeout: 30_000 },
        )
        .toEqual(["child-1", "child-2", "own"]);
      victim.kill("SIGKILL");
      await waitForExit(victim);
      survivor = spawnTs("tests/helpers/test-worker-process.ts", env);
      const done = await store.waitForStatus(run.id, ["completed", "failed"], 60_000);
      expect(done.failure).toBeNull();
      expect(await resultOf(run.id)).toMatchObject({ structuredContent: { values: [10, 20] } });
      const started = await children(run.id);
      expect(started.map((child) => [child.parent_key, child.status])).toEqual([
        ["c1", "completed"],
        ["c2", "completed"],
      ]);
      // At least once: each step in flight at the kill ran again, in the same runs.
      expect(await logged(run.id)).toEqual(["own", "own"]);
      for (const child of started) expect((await logged(child.id)).length).toBe(2);
      expect(await store.events(run.id, "child_started")).toHaveLength(2);
    } finally {
      victim.kill("SIGKILL");
      survivor?.kill("SIGTERM");
      if (survivor) await waitForExit(survivor);
    }
  });

  it("cancels the unfinished children and grandchildren of a cancelled run", async () => {
    await store.startWorker([waiting]);
    const run = await store.create(waiting, { depth: 2 });
    await expect
      .poll(
        async () => {
          const [child] = await children(run.id);
          const [grand] = child ? await children(child.id) : [];
          return grand ? await store.run(grand.id).then((row) => row?.status) : undefined;
        },
        { timeout: 10_000 },
      )
      .toBe("waiting_signal");
    const [child] = await children(run.id);
    const [grand] = await children(child?.id as string);
    await store.waitForStatus(child?.id as string, "waiting_signal");
    expect(await cancelRunForTenant(store.sql, { tenantId: TENANT, runId: run.id, reason: "stop" })).toEqual({
      outcome: "cancelled",
    });
    for (const id of [child?.id, grand?.id] as string[]) {
      expect((await store.run(id))?.status).toBe("cancelled");
      expect((await store.terminalPayload(id))?.payload).toEqual({
        reason: "Cancelled with its parent task",
        actor: `parent:${id === grand?.id ? child?.id : run.id}`,
      });
    }
  });

  it("tells a parent whose child was cancelled, as a ChildWorkflowFailed it may catch", async () => {
    await store.startWorker([cancelledChild, waiting]);
    const run = await store.create(cancelledChild, {});
    await expect.poll(async () => (await children(run.id))[0]?.id, { timeout: 10_000 }).toBeTruthy();
    const [started] = await children(run.id);
    await store.waitForStatus(started?.id as string, "waiting_signal");
    await cancelRunForTenant(store.sql, { tenantId: TENANT, runId: started?.id as string, reason: "not needed" });
    expect((await store.waitForStatus(run.id, ["completed", "failed"])).status).toBe("completed");
    expect((await resultOf(run.id)).structuredContent).toEqual({ status: "cancelled", reason: "not needed" });
  });

  it("fans out three children with Promise.all and replays the fan-out after a resume", async () => {
    await store.startWorker([fanOut, double]);
    const run = await store.create(fanOut, {});
    await store.waitForStatus(run.id, "waiting_signal");
    await expect.poll(async () => (await store.events(run.id, "child_started")).length, { timeout: 10_000 }).toBe(3);
    // Parked for the signal now: every child has ended and its end is recorded.
    await expect
      .poll(async () => (await children(run.id)).map((child) => child.status), { timeout: 10_000 })
      .toEqual(["completed", "completed", "completed"]);
    expect(await sendSignal(store.sql, { runId: run.id, name: "go", payload: null })).toBe(true);
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.failure).toBeNull();
    const started = await children(run.id);
    expect(started.map((child) => child.parent_key)).toEqual(["item-1", "item-2", "item-3"]);
    // The waits went to the store once every start was recorded: the first park follows the three starts
    // (it lists the children still running then; under load one may have ended already, and is recorded).
    const [order] = await store.sql<{ after: boolean }[]>`
      SELECT (SELECT min(id) FROM run_events WHERE run_id = ${run.id} AND type = 'waiting_children')
           > (SELECT max(id) FROM run_events WHERE run_id = ${run.id} AND type = 'child_started') AS after`;
    expect(order?.after).toBe(true);
    expect(await resultOf(run.id)).toMatchObject({
      structuredContent: { values: [2, 4, 6], children: started.map((child) => child.id) },
    });
    for (const child of started) expect(await store.stepRuns(child.id, "double")).toBe(1);
    const keys = await store.sql<{ key: string }[]>`SELECT key FROM run_steps WHERE run_id = ${run.id} ORDER BY key`;
    expect(keys.map((row) => row.key)).toEqual([
      "child-result:item-1",
      "child-result:item-2",
      "child-result:item-3",
      "child:item-1",
      "child:item-2",
      "child:item-3",
      "signal:go#0",
    ]);
    // The exported history replays against the same code with no database (the fan-out's order is the code's).
    const history = await readRunHistory(store.sql, { runId: run.id, tenantIds: [TENANT] });
    expect(history?.operations.filter((operation) => operation.kind === "child")).toHaveLength(3);
    const replayed = await replayHistory(fanOut, history as NonNullable<typeof history>);
    expect(replayed).toMatchObject({ reachedEnd: false, result: { structuredContent: { values: [2, 4, 6] } } });
  });

  it("completes 40 parents of three sequential children that end at once, on two workers (race: child-wake-race.test.ts)", async () => {
    await store.startWorker([quickParent, instant]);
    await store.startWorker([quickParent, instant]);
    const runs = await Promise.all(Array.from({ length: 40 }, () => store.create(quickParent, {})));
    const ended = await Promise.all(runs.map((run) => store.waitForStatus(run.id, ["completed", "failed"], 30_000)));
    expect(ended.map((run) => run.status)).toEqual(runs.map(() => "completed"));
    const [count] = await store.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM runs WHERE parent_run_id = ANY(${runs.map((run) => run.id)}::uuid[])`;
    expect(count?.n).toBe(120);
  });

  it("records a child started and never awaited before the parent ends, and the child runs on", async () => {
    await store.startWorker([forgetful, double]);
    const runs = await Promise.all(Array.from({ length: 5 }, () => store.create(forgetful, {})));
    for (const run of runs) {
      expect((await store.waitForStatus(run.id, ["completed", "failed"])).status).toBe("completed");
      const started = await children(run.id);
      expect(started).toHaveLength(1);
      await store.waitForStatus(started[0]?.id as string, "completed");
    }
  });

  it("refuses a second unkeyed child of one workflow in a parallel section, naming the way out", async () => {
    await store.startWorker([unkeyedFanOut, double]);
    const run = await store.create(unkeyedFanOut, {});
    const done = await store.waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("failed");
    expect(String(done.failure?.message)).toMatch(/ctx\.child\("double"\) was called for the 2nd time while other durable/);
    expect(String(done.failure?.message)).toMatch(/own key/);
  });
});
