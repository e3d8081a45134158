import { createRun, defineWorkflow, NonRetryableError, provideInput, sendSignal } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { presentTaskDetail } from "../../lib/ui/presenters/task-detail";
import { logStep } from "../fixtures/engine-workflows";
import { engineStore, TENANT } from "./support/harness";

/**
 * Only connection-level store errors are transient (review F2); the first execution sees what a
 * replay sees (F6); sizes are bounded (F13). Each failure ends the run at once with a stored cause.
 */
const store = engineStore();

type Bad = "bigint" | "circular" | "nan-sleep" | "huge" | "bad-result";
const misbehaves = defineWorkflow({
  name: "misbehaves",
  version: 1,
  input: z.object({ bad: z.enum(["bigint", "circular", "nan-sleep", "huge", "bad-result"]) }),
  async run(ctx, input) {
    const bad = input.bad as Bad;
    if (bad === "nan-sleep") await ctx.sleep("never", Number.NaN);
    if (bad === "bad-result") return { content: [], structuredContent: { n: 1n } as unknown as Record<string, unknown> };
    await ctx.step("charge", async () => {
      await logStep(ctx.runId, "charge");
      if (bad === "bigint") return { n: 1n };
      if (bad === "huge") return { blob: "x".repeat(2 * 1024 * 1024) };
      const response: Record<string, unknown> = { status: 200 };
      response.self = response;
      return response;
    });
    return { content: [] };
  },
});

const dated = defineWorkflow({
  name: "dated",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const due = await ctx.step("due", () => ({ at: new Date("2030-01-01T00:00:00.000Z"), gone: undefined, nan: Number.NaN }));
    const firstLook = { type: typeof due.at, keys: Object.keys(due), nan: due.nan };
    await ctx.sleep("wait", 1);
    return { content: [{ type: "text", text: String(due.at) }], structuredContent: { firstLook } };
  },
});

const logs = defineWorkflow({
  name: "logs",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.log("starting", { items: 2 });
    await ctx.step("a", () => 1);
    await ctx.log("between a and the nap");
    await ctx.sleep("nap", 1);
    await ctx.log("after the nap");
    await ctx.step("b", () => {
      throw new NonRetryableError("card declined: token tok_secret");
    });
    return { content: [] };
  },
});

describe("error classes", () => {
  it.each([
    ["bigint", "not_serialisable", /not JSON-serialisable.*BigInt/],
    ["circular", "not_serialisable", /not JSON-serialisable.*circular/i],
    ["huge", "payload_too_large", /step "charge" output is 2\.0 MiB, over the limit of 1\.0 MiB/],
  ])("fails the run at once when a step output is %s, running the side effect once", async (bad, code, message) => {
    await store.startWorker([misbehaves]);
    const run = await store.create(misbehaves, { bad });
    const done = await store.waitForStatus(run.id, ["failed", "completed"], 10_000);
    expect(done.status).toBe("failed");
    expect(done.failure).toMatchObject({ code, step: "charge", stepAttempt: 1, attempt: 1 });
    expect(String(done.failure?.message)).toMatch(message);
    expect(await store.stepRuns(run.id, "charge")).toBe(1);
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
      error: {
        code: -32603,
        message: 'Workflow misbehaves@1 failed in step "charge"',
        data: { cause: { code, step: "charge" } },
      },
    });
  });

  it("fails the run at once on ctx.sleep(NaN) and on a result it cannot store", async () => {
    await store.startWorker([misbehaves]);
    const nan = await store.create(misbehaves, { bad: "nan-sleep" });
    const result = await store.create(misbehaves, { bad: "bad-result" });
    const nanDone = await store.waitForStatus(nan.id, ["failed", "completed"], 10_000);
    expect(nanDone.failure).toMatchObject({ code: "invalid_argument", attempt: 1 });
    expect(String(nanDone.failure?.message)).toMatch(/ctx\.sleep\("never"\) ms must be a finite number/);
    const resultDone = await store.waitForStatus(result.id, ["failed", "completed"], 10_000);
    expect(resultDone.failure).toMatchObject({ code: "not_serialisable", attempt: 1 });
    expect(String(resultDone.failure?.message)).toMatch(/the workflow's result is not JSON-serialisable/);
  });
});

describe("replay sees what the first execution saw", () => {
  it("returns the JSON round trip of a step on its first execution too (a Date is a string both times)", async () => {
    await store.startWorker([dated]);
    const run = await store.create(dated, {});
    await store.waitForStatus(run.id, "completed");
    const terminal = await store.terminalPayload(run.id);
    expect(terminal?.payload).toMatchObject({
      result: {
        content: [{ text: "2030-01-01T00:00:00.000Z" }],
        structuredContent: { firstLook: { type: "string", keys: ["at", "nan"], nan: null } },
      },
    });
  });
});

describe("failure causes and the run's timeline", () => {
  it("stores the cause (code, message, step, attempt) for operators and writes ctx.log lines once", async () => {
    await store.startWorker([logs]);
    const run = await store.create(logs, {});
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.failure).toEqual({
      code: "step_failed",
      name: "NonRetryableError",
      message: "card declined: token tok_secret",
      step: "b",
      stepAttempt: 1,
      attempt: 2,
    });
    const lines = (await store.events(run.id, "log")).map((e) => e.payload);
    expect(lines).toEqual([
      { message: "starting", data: { items: 2 } },
      { message: "between a and the nap" },
      { message: "after the nap" },
    ]);
    // The client's error carries no message from inside the workflow.
    expect(JSON.stringify((await store.terminalPayload(run.id))?.payload)).not.toMatch(/tok_secret/);
    // The operator's task page shows the cause, and the timeline the log lines.
    const operator = { id: "o", email: "o@example.com", name: "O", role: "operator" as const, tenantIds: [TENANT] };
    const detail = await presentTaskDetail(store.sql, operator, run.id);
    expect(detail?.failureCause).toMatchObject({ code: "step_failed", step: "b", message: "card declined: token tok_secret" });
    expect(detail?.events.map((e) => e.summary)).toContain("log: after the nap");
    const stranger = { ...operator, tenantIds: ["00000000-0000-4000-8000-0000000000ff"] };
    expect(await presentTaskDetail(store.sql, stranger, run.id)).toBeUndefined();
  });
});

const oversized = defineWorkflow({
  name: "oversized",
  version: 1,
  input: z.object({ what: z.enum(["progress", "result"]) }),
  async run(ctx, input) {
    if (input.what === "progress") await ctx.progress({ progress: 1, message: "m".repeat(5_000) });
    return { content: [{ type: "text", text: "r".repeat(input.what === "result" ? 5 * 1024 * 1024 : 1) }] };
  },
});

describe("size limits", () => {
  it("refuses an oversized signal payload or input answer before writing anything", async () => {
    const run = await createRun(store.sql, { tenantId: TENANT, workflowName: "limits", workflowVersion: 1, input: {} });
    await expect(sendSignal(store.sql, { runId: run.id, name: "big", payload: "p".repeat(300 * 1024) })).rejects.toThrow(
      /signal "big" payload is 300\.0 KiB, over the limit of 256\.0 KiB/,
    );
    await expect(
      provideInput(store.sql, {
        runId: run.id,
        responses: { k: { action: "accept", content: { text: "a".repeat(70 * 1024) } } },
        actor: "t",
      }),
    ).rejects.toThrow(/the answer to input "k" is .* over the limit of 64\.0 KiB/);
    const [signals] = await store.sql`SELECT count(*)::int AS n FROM run_signals WHERE run_id = ${run.id}`;
    expect(signals?.n).toBe(0);
  });

  it("fails the run with a clear cause for an oversized progress message or result", async () => {
    await store.startWorker([oversized]);
    const progress = await store.create(oversized, { what: "progress" });
    const result = await store.create(oversized, { what: "result" });
    const progressDone = await store.waitForStatus(progress.id, "failed");
    expect(progressDone.failure).toMatchObject({ code: "payload_too_large" });
    expect(String(progressDone.failure?.message)).toMatch(/progress message is 5000 characters, over the limit of 1000/);
    const resultDone = await store.waitForStatus(result.id, "failed");
    expect(resultDone.failure).toMatchObject({ code: "payload_too_large" });
    expect(String(resultDone.failure?.message)).toMatch(/the workflow's result is 5\.0 MiB, over the limit of 4\.0 MiB/);
  });
});
