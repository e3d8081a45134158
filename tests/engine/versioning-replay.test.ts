import { defineWorkflow } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { engineStore } from "./support/harness";

/**
 * Code changed under a running version, replayed by a real worker against a real store: renamed
 * work behind a parallel section is refused before its side effect runs, and ctx.patched lets a
 * running version take a new path only where a run has not passed that point.
 */
const store = engineStore();

/** Side effects per run and step key, counted in this process (the workers run here). */
const effects = new Map<string, number>();
const effect = (runId: string, key: string) => effects.set(`${runId}/${key}`, (effects.get(`${runId}/${key}`) ?? 0) + 1);
const effectsOf = (runId: string, key: string) => effects.get(`${runId}/${key}`) ?? 0;

const slow = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Version 1 as it ran: two loads in parallel, a charge, then a long sleep. */
const charges = defineWorkflow({
  name: "charges",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await Promise.all([ctx.step("load-a", () => 1), ctx.step("load-b", () => 2)]);
    await ctx.step("charge", () => effect(ctx.runId, "charge") && "c-1");
    await ctx.sleep("settle", 60_000);
    return { content: [] };
  },
});

/** The same name@version after an edit: the charge renamed, behind the Promise.all. */
const renamed = defineWorkflow({
  ...charges,
  async run(ctx) {
    await Promise.all([ctx.step("load-a", () => 1), ctx.step("load-b", () => 2)]);
    await ctx.step("charge-card", () => effect(ctx.runId, "charge-card") && "c-2");
    await ctx.sleep("settle", 60_000);
    return { content: [] };
  },
});

/**
 * One branch parks while the other's first step is still running: on resume that step is new work
 * reached before the other branch has replayed its sleep. It is not a code change, so no alarm.
 */
const racing = defineWorkflow({
  name: "racing-branches",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await Promise.all([
      (async () => {
        await ctx.step("a1", async () => {
          await slow(400);
          effect(ctx.runId, "a1");
        });
        await ctx.step("a2", () => effect(ctx.runId, "a2"));
      })(),
      (async () => {
        await ctx.step("b0", () => 0);
        await ctx.sleep("b-nap", 300);
      })(),
    ]);
    await ctx.step("after", () => effect(ctx.runId, "after"));
    return { content: [] };
  },
});

/** Version 1 of a job: the old computation, then a long sleep. */
const jobV1 = defineWorkflow({
  name: "patched-job",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const total = await ctx.step("total", () => effect(ctx.runId, "total") && "old");
    await ctx.sleep("cool-down", 60_000);
    await ctx.step("report", () => effect(ctx.runId, "report"));
    return { content: [], structuredContent: { total } };
  },
});

/** The fix deployed under the same version, behind a patch point. */
const jobPatched = defineWorkflow({
  ...jobV1,
  async run(ctx) {
    const total = ctx.patched("fixed-total")
      ? await ctx.step("total-fixed", () => effect(ctx.runId, "total-fixed") && "new")
      : await ctx.step("total", () => effect(ctx.runId, "total") && "old");
    await ctx.sleep("cool-down", 60_000);
    // A second patch point after the sleep: a run parked before it reaches it for the first time.
    const report = ctx.patched("fixed-report") ? "report-v2" : "report";
    await ctx.step(report, () => effect(ctx.runId, report));
    return { content: [], structuredContent: { total, report } };
  },
});

/** Parks a run on its long sleep under `definition`, stops the worker, and makes the timer due. */
async function parkedUnder(definition: Parameters<typeof store.create>[0]) {
  const worker = await store.startWorker([definition]);
  const run = await store.create(definition, {});
  await store.waitForStatus(run.id, "sleeping");
  await worker.stop(500);
  await wake(run.id);
  return run;
}

async function wake(runId: string) {
  await store.sql`UPDATE run_steps SET output = jsonb_build_object('wakeAt', now()) WHERE run_id = ${runId} AND key LIKE 'sleep:%'`;
  await store.sql`UPDATE runs SET claimable_at = now() WHERE id = ${runId}`;
}

describe("non-determinism past a parallel section", () => {
  it("refuses a step renamed after a Promise.all before its side effect runs", async () => {
    const run = await parkedUnder(charges);
    expect(effectsOf(run.id, "charge")).toBe(1);
    await store.startWorker([renamed]);
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.status).toBe("failed");
    expect(done.failure).toMatchObject({ code: "nondeterminism" });
    expect(String(done.failure?.message)).toMatch(
      /ctx\.step\("charge-card"\) is new, and the history holds ctx\.step\("charge"\), ctx\.sleep\("settle"\)/,
    );
    expect(effectsOf(run.id, "charge-card")).toBe(0);
    expect(effectsOf(run.id, "charge")).toBe(1);
  });

  it("lets a branch's new work run once the other branches have replayed theirs (no false alarm)", async () => {
    await store.startWorker([racing]);
    const run = await store.create(racing, {});
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.failure).toBeNull();
    expect(done.status).toBe("completed");
    // The park cut a1 short, so a resumed attempt ran it as new work beside a replayed sleep.
    expect(done.attempt).toBeGreaterThanOrEqual(2);
    const [a1] = await store.sql`SELECT seq FROM run_steps WHERE run_id = ${run.id} AND key = 'a1'`;
    expect(a1).toBeDefined();
    expect(effectsOf(run.id, "a2")).toBe(1);
    expect(effectsOf(run.id, "after")).toBe(1);
  });
});

describe("ctx.patched", () => {
  it("takes the new path for a new run and keeps it when the run replays", async () => {
    await store.startWorker([jobPatched]);
    const run = await store.create(jobPatched, {});
    await store.waitForStatus(run.id, "sleeping");
    const markers = await store.sql`SELECT key, seq FROM run_steps WHERE run_id = ${run.id} AND key LIKE 'patched:%'`;
    expect(markers).toEqual([{ key: "patched:fixed-total", seq: null }]);
    await wake(run.id);
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.failure).toBeNull();
    expect((await store.terminalPayload(run.id))?.payload.result).toMatchObject({
      structuredContent: { total: "new", report: "report-v2" },
    });
    expect(effectsOf(run.id, "total-fixed")).toBe(1);
    expect(effectsOf(run.id, "total")).toBe(0);
  });

  it("keeps the old path for a run parked past the patch point, and takes the new one past a point it had not reached", async () => {
    const run = await parkedUnder(jobV1);
    await store.startWorker([jobPatched]);
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.failure).toBeNull();
    expect((await store.terminalPayload(run.id))?.payload.result).toMatchObject({
      structuredContent: { total: "old", report: "report-v2" },
    });
    expect(effectsOf(run.id, "total")).toBe(1);
    expect(effectsOf(run.id, "total-fixed")).toBe(0);
    const markers = await store.sql`SELECT key FROM run_steps WHERE run_id = ${run.id} AND key LIKE 'patched:%' ORDER BY key`;
    expect(markers.map((row) => row.key)).toEqual(["patched:fixed-report"]);
  });

  it("is refused inside a step body; deprecatePatch records nothing", async () => {
    const inBody = defineWorkflow({
      name: "patched-in-body",
      version: 1,
      input: z.object({}),
      async run(ctx) {
        await ctx.step("body", () => ctx.patched("x"));
        return { content: [] };
      },
    });
    const retired = defineWorkflow({
      name: "patch-retired",
      version: 1,
      input: z.object({}),
      async run(ctx) {
        ctx.deprecatePatch("fixed-total");
        await ctx.step("total-fixed", () => "new");
        return { content: [] };
      },
    });
    await store.startWorker([inBody, retired]);
    const misused = await store.create(inBody, {});
    const plain = await store.create(retired, {});
    const done = await store.waitForStatus(misused.id, ["failed", "completed"]);
    expect(done.failure).toMatchObject({ code: "invalid_argument" });
    expect(String(done.failure?.message)).toMatch(/ctx\.patched\("x"\) was called inside the body of step "body"/);
    expect((await store.waitForStatus(plain.id, ["failed", "completed"])).status).toBe("completed");
    expect(await store.sql`SELECT key FROM run_steps WHERE run_id = ${plain.id}`).toEqual([{ key: "total-fixed" }]);
  });

  it("refuses a reserved or empty id", async () => {
    const misuse = defineWorkflow({
      name: "patched-misuse",
      version: 1,
      input: z.object({}),
      async run(ctx) {
        ctx.patched("");
        return { content: [] };
      },
    });
    await store.startWorker([misuse]);
    const run = await store.create(misuse, {});
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.failure).toMatchObject({ code: "invalid_argument" });
    expect(String(done.failure?.message)).toMatch(/ctx\.patched id must be a string of 1-200 characters/);
  });
});
