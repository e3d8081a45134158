import { defineWorkflow, provideInput, WorkflowFailure } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { logStep, retryAcrossCrash } from "../fixtures/engine-workflows";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/** Retry policy per step and per workflow, and timeouts per step, run and input request. */
const store = engineStore();

class PaymentDeclined extends Error {}

const retried = defineWorkflow({
  name: "retried",
  version: 1,
  retry: { maxAttempts: 2, initialBackoffMs: 10 },
  input: z.object({ kind: z.enum(["default", "failure", "declined", "parked"]) }),
  async run(ctx, input) {
    const value = await ctx.step(
      "pay",
      async ({ attempt }) => {
        await logStep(ctx.runId, "pay");
        if (input.kind === "failure") throw new WorkflowFailure("the card was declined", 4001);
        if (input.kind === "declined") throw new PaymentDeclined("declined");
        if (input.kind === "parked" && attempt < 2) throw new Error("try again later");
        if (input.kind === "default") throw new Error(`execution ${attempt} fails`);
        return attempt;
      },
      input.kind === "declined"
        ? { retry: { maxAttempts: 5, nonRetryable: ["PaymentDeclined"] } }
        : input.kind === "parked"
          ? { retry: { maxAttempts: 3, initialBackoffMs: 1_200, jitter: 0 } }
          : undefined,
    );
    return { content: [{ type: "text", text: `paid on execution ${value}` }] };
  },
});

const timeouts = defineWorkflow({
  name: "timeouts",
  version: 1,
  input: z.object({ kind: z.enum(["step", "input-default", "input-fail"]) }),
  async run(ctx, input) {
    if (input.kind === "step") {
      await ctx.step(
        "stuck",
        async ({ signal }) => {
          await logStep(ctx.runId, "stuck");
          signal.addEventListener("abort", () => void logStep(ctx.runId, `stuck-aborted:${signal.reason?.name}`));
          await new Promise(() => {}); // ignores its signal: the timeout must end it anyway
        },
        { timeoutMs: 150, retries: 1, backoffMs: 10 },
      );
    }
    const answer = await ctx.requestInput(
      "approve",
      { method: "elicitation/create", params: { message: "Approve?", requestedSchema: { type: "object", properties: {} } } },
      { timeoutMs: 200, onTimeout: input.kind === "input-default" ? { action: "decline" } : "fail" },
    );
    return { content: [{ type: "text", text: answer.action }] };
  },
});

const slowRun = defineWorkflow({
  name: "slow-run",
  version: 1,
  timeoutMs: 600,
  input: z.object({ park: z.boolean() }),
  async run(ctx, input) {
    if (input.park) await ctx.sleep("long", 60_000);
    else await ctx.step("long", () => new Promise((resolve) => setTimeout(resolve, 5_000)));
    return { content: [] };
  },
});

describe("retry policy", () => {
  it("keeps the count of failed executions across a worker killed during the backoff", { timeout: 60_000 }, async () => {
    const spawnWorker = () =>
      spawnTs("tests/helpers/test-worker-process.ts", {
        DATABASE_URL: store.url,
        RUNIFOLD_LEASE_MS: "1500",
        RUNIFOLD_POLL_MS: "100",
      });
    const victim = spawnWorker();
    let survivor: ReturnType<typeof spawnWorker> | undefined;
    try {
      const run = await store.create(retryAcrossCrash, {});
      await waitFor(
        () => store.sql`SELECT output FROM run_steps WHERE run_id = ${run.id} AND key = 'retry:flaky'`,
        (rows) => rows[0]?.output?.failures === 2,
        { describe: "two failed executions to be recorded", timeoutMs: 30_000 },
      );
      victim.kill("SIGKILL");
      await waitForExit(victim);
      survivor = spawnWorker();
      await store.waitForStatus(run.id, "completed", 30_000);
      expect(await store.stepRuns(run.id, "flaky")).toBe(3);
      expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
        result: { content: [{ text: "succeeded on execution 3" }] },
      });
    } finally {
      victim.kill("SIGKILL");
      survivor?.kill("SIGTERM");
      if (survivor) await waitForExit(survivor);
    }
  });

  it("applies the workflow's policy by default, never retries WorkflowFailure or a non-retryable class", async () => {
    await store.startWorker([retried]);
    const byDefault = await store.create(retried, { kind: "default" });
    const failure = await store.create(retried, { kind: "failure" });
    const declined = await store.create(retried, { kind: "declined" });
    for (const run of [byDefault, failure, declined]) await store.waitForStatus(run.id, "failed");
    expect(await store.stepRuns(byDefault.id, "pay")).toBe(2);
    expect(await store.stepRuns(failure.id, "pay")).toBe(1);
    expect(await store.stepRuns(declined.id, "pay")).toBe(1);
    expect((await store.terminalPayload(failure.id))?.payload).toMatchObject({
      error: { code: 4001, message: "the card was declined" },
    });
    expect((await store.run(failure.id))?.failure).toMatchObject({ code: "workflow_failure", step: "pay", stepAttempt: 1 });
    expect((await store.run(byDefault.id))?.failure).toMatchObject({
      code: "step_failed",
      message: "execution 2 fails",
      stepAttempt: 2,
    });
  });

  it("parks the run for a long backoff and resumes it on any worker", async () => {
    await store.startWorker([retried]);
    const run = await store.create(retried, { kind: "parked" });
    const parked = await waitFor(
      () => store.sql`SELECT status, wait_detail FROM runs WHERE id = ${run.id}`,
      (rows) => rows[0]?.status === "sleeping",
      { describe: "the run to park for its backoff" },
    );
    expect(parked[0]?.wait_detail).toMatchObject({ timer: { key: "retry:pay" } });
    await store.waitForStatus(run.id, "completed");
    expect(await store.stepRuns(run.id, "pay")).toBe(2);
  });
});

describe("timeouts", () => {
  it("fires a step's signal at its timeout and fails the step with a timeout, even if the body ignores it", async () => {
    await store.startWorker([timeouts]);
    const run = await store.create(timeouts, { kind: "step" });
    const done = await store.waitForStatus(run.id, "failed", 10_000);
    expect(done.failure).toMatchObject({ code: "step_timeout", step: "stuck", stepAttempt: 2 });
    expect(await store.stepRuns(run.id, "stuck")).toBe(2);
    await waitFor(
      () => store.stepRuns(run.id, "stuck-aborted:StepTimeout"),
      (n) => n === 2,
      { describe: "both executions' signals to fire with StepTimeout" },
    );
  });

  it("answers an input request with its default answer at the timeout, or fails the run", async () => {
    await store.startWorker([timeouts]);
    const defaulted = await store.create(timeouts, { kind: "input-default" });
    const failing = await store.create(timeouts, { kind: "input-fail" });
    await store.waitForStatus(defaulted.id, "completed");
    expect((await store.terminalPayload(defaulted.id))?.payload).toMatchObject({ result: { content: [{ text: "decline" }] } });
    const failed = await store.waitForStatus(failing.id, "failed");
    expect(failed.failure).toMatchObject({ code: "input_timeout" });
    // A late answer changes nothing.
    const late = await provideInput(store.sql, { runId: failing.id, responses: { approve: { action: "accept" } }, actor: "t" });
    expect(late.resumed).toBe(false);
  });

  it("fails a run past its own timeout, while running and while parked", async () => {
    await store.startWorker([slowRun]);
    const running = await store.create(slowRun, { park: false });
    const parked = await store.create(slowRun, { park: true });
    const runningDone = await store.waitForStatus(running.id, "failed", 10_000);
    expect(runningDone.failure).toMatchObject({ code: "run_timeout" });
    const parkedDone = await store.waitForStatus(parked.id, "failed", 10_000);
    expect(parkedDone.failure).toMatchObject({ code: "run_timeout" });
    expect((await store.terminalPayload(parked.id))?.payload).toMatchObject({
      error: { message: "Workflow slow-run@1 timed out", data: { cause: { code: "run_timeout" } } },
    });
  });
});
