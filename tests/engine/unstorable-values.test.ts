import {
  createRun,
  defineWorkflow,
  InvalidWorkflowInput,
  NonRetryableError,
  provideInput,
  sendSignal,
  WorkflowFailure,
  WorkflowMisuse,
} from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { logStep } from "../fixtures/engine-workflows";
import { waitFor } from "../helpers/wait-for";
import { engineStore, TENANT } from "./support/harness";

/**
 * Values JSON accepts and PostgreSQL refuses (U+0000, unpaired surrogates; review 3, E1). The engine
 * refuses them before any SQL, names where they were, and never lets one run's value fail another
 * run's write in a shared batch; failure text is made storable, and a terminal write the store still
 * refuses ends the run with a fixed cause instead of leaving it to be re-run.
 */
const store = engineStore();

/** Every step body of a batch waits here, so their checkpoints (and then results) leave together. */
let gate = opened();
function opened() {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open, waiting: 0 };
}

type Poison = "none" | "nul" | "surrogate" | "store-refuses-step" | "store-refuses-result";
const POISONS = ["none", "nul", "surrogate", "store-refuses-step", "store-refuses-result"] as const;
const OUTPUTS: Record<Poison, string> = {
  none: "fine",
  nul: "a\u0000b",
  surrogate: "half an emoji: \ud83d",
  "store-refuses-step": "store-refuses-step",
  "store-refuses-result": "fine",
};

const batched = defineWorkflow({
  name: "unstorable-batch",
  version: 1,
  input: z.object({ poison: z.enum(POISONS) }),
  async run(ctx, input) {
    const output = await ctx.step("s", async () => {
      await logStep(ctx.runId, "s");
      gate.waiting++;
      await gate.promise;
      return OUTPUTS[input.poison];
    });
    const text = input.poison === "store-refuses-result" ? "store-refuses-result" : output;
    return { content: [{ type: "text", text }] };
  },
});

/**
 * Stands in for a write the store refuses although the engine let it through (the class of value E1
 * is about): a checkpoint or a terminal event carrying the marker fails with SQLSTATE 22P05, the
 * error Postgres raises for "\u0000" in jsonb. Test database only.
 */
const REFUSING_TRIGGERS = `
  CREATE OR REPLACE FUNCTION refuse_marked_step() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.output::text LIKE '%store-refuses-step%' THEN
      RAISE EXCEPTION 'unsupported Unicode escape sequence (test trigger)' USING ERRCODE = '22P05';
    END IF;
    RETURN NEW;
  END $$;
  CREATE OR REPLACE FUNCTION refuse_marked_result() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.type = 'completed' AND NEW.payload::text LIKE '%store-refuses-result%' THEN
      RAISE EXCEPTION 'unsupported Unicode escape sequence (test trigger)' USING ERRCODE = '22P05';
    END IF;
    RETURN NEW;
  END $$;
  CREATE OR REPLACE TRIGGER refuse_marked_step BEFORE INSERT ON run_steps FOR EACH ROW EXECUTE FUNCTION refuse_marked_step();
  CREATE OR REPLACE TRIGGER refuse_marked_result BEFORE INSERT ON run_events FOR EACH ROW EXECUTE FUNCTION refuse_marked_result();`;

describe("one run's unstorable value inside a batch of 16", () => {
  it.each([
    ["nul", "not_serialisable", /step "s" output holds U\+0000 or an unpaired surrogate/],
    ["surrogate", "not_serialisable", /step "s" output holds U\+0000 or an unpaired surrogate/],
    ["store-refuses-step", "not_serialisable", /step "s" output could not be stored/],
    ["store-refuses-result", "unstorable_outcome", /could not be stored/],
  ] as const)("%s: fails only the guilty run, once, with a cause; the 15 others complete", async (poison, code, message) => {
    await store.sql.unsafe(REFUSING_TRIGGERS);
    gate = opened();
    const innocent = [];
    for (let i = 0; i < 15; i++) innocent.push(await store.create(batched, { poison: "none" }));
    const guilty = await store.create(batched, { poison });
    // tenantShare 1: the 16 runs are one tenant's, and the batch under test is all 16 in one claim.
    await store.startWorker([batched], { leaseMs: 3_000, tenantShare: 1 });
    await waitFor(
      () => gate.waiting,
      (n) => n === 16,
      { describe: "16 step bodies to be waiting" },
    );
    gate.open();
    const done = await store.waitForStatus(guilty.id, ["failed", "completed"]);
    expect(done.status).toBe("failed");
    expect(done.failure).toMatchObject({ code, attempt: 1 });
    if (poison !== "store-refuses-result") expect(done.failure).toMatchObject({ step: "s", stepAttempt: 1 });
    expect(String(done.failure?.message)).toMatch(message);
    const others = await Promise.all(innocent.map((run) => store.waitForStatus(run.id, ["failed", "completed"])));
    expect(others.map((run) => run.status)).toEqual(Array(15).fill("completed"));
    // Nobody lost a lease or ran twice: every run was claimed once and its step executed once.
    expect(others.map((run) => run.attempt)).toEqual(Array(15).fill(1));
    expect(await store.stepRuns(guilty.id, "s")).toBe(1);
    const [executions] = await store.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM step_log WHERE run_id IN ${store.sql(innocent.map((run) => run.id))}`;
    expect(executions?.n).toBe(15);
  });
});

const declines = defineWorkflow({
  name: "unstorable-failure-text",
  version: 1,
  input: z.object({ message: z.enum(["nul", "emoji-at-2000", "workflow-failure"]) }),
  async run(ctx, input) {
    const text =
      input.message === "nul" ? "upstream said: \u0000card declined" : `${"x".repeat(1999)}😀 upstream body with more text`;
    if (input.message === "workflow-failure") throw new WorkflowFailure(`declined \u0000 ${text}`);
    await ctx.step("charge", async () => {
      await logStep(ctx.runId, "charge");
      throw new NonRetryableError(text);
    });
    return { content: [] };
  },
});

/** Throws a retryable error carrying a NUL twice, then succeeds: each failure is recorded. */
const flaky = defineWorkflow({
  name: "unstorable-retry-text",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.step(
      "call",
      async ({ attempt }) => {
        await logStep(ctx.runId, "call");
        if (attempt < 3) throw new Error(`bad gateway \u0000 ${"y".repeat(1999)}😀`);
        return attempt;
      },
      { retry: { maxAttempts: 3, initialBackoffMs: 10 } },
    );
    return { content: [] };
  },
});

describe("failure text the store could not hold", () => {
  it.each([
    ["nul", /^upstream said: \uFFFDcard declined$/],
    ["emoji-at-2000", /^x{1999}😀$/],
  ] as const)("a non-retryable step failing with %s in its message runs once and fails with its cause", async (kind, message) => {
    await store.startWorker([declines], { leaseMs: 2_000 });
    const run = await store.create(declines, { message: kind });
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done.failure).toMatchObject({ code: "step_failed", step: "charge", stepAttempt: 1, attempt: 1 });
    expect(String(done.failure?.message)).toMatch(message);
    // Cut by code point: the emoji at the limit is whole or absent, never half.
    expect(String(done.failure?.message)).not.toMatch(/\p{Cs}/u);
    expect(Array.from(String(done.failure?.message)).length).toBeLessThanOrEqual(2_000);
    expect(await store.stepRuns(run.id, "charge")).toBe(1);
  });

  it("a WorkflowFailure whose message holds U+0000 fails the run once with the message made storable", async () => {
    await store.startWorker([declines], { leaseMs: 2_000 });
    const run = await store.create(declines, { message: "workflow-failure" });
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done).toMatchObject({ status: "failed", attempt: 1 });
    expect(done.status_message).toMatch(/^declined \uFFFD x+/);
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({ error: { message: done.status_message } });
  });

  it("a retried step whose errors hold U+0000 records each failure and completes", async () => {
    await store.startWorker([flaky]);
    const run = await store.create(flaky, {});
    const done = await store.waitForStatus(run.id, ["failed", "completed"]);
    expect(done).toMatchObject({ status: "completed", attempt: 1 });
    expect(await store.stepRuns(run.id, "call")).toBe(3);
  });
});

const asks = defineWorkflow({
  name: "unstorable-request",
  version: 1,
  input: z.object({ what: z.enum(["request", "result", "log"]) }),
  async run(ctx, input) {
    if (input.what === "log") await ctx.log("a line", { raw: "\u0000" });
    if (input.what === "request")
      await ctx.requestInput("confirm", {
        method: "elicitation/create",
        params: { message: "Pay \ud800?", requestedSchema: { type: "object", properties: {} } },
      });
    return { content: [{ type: "text", text: input.what === "result" ? "nul \u0000" : "ok" }] };
  },
});

const noted = defineWorkflow({
  name: "unstorable-input",
  version: 1,
  input: z.object({ note: z.string() }),
  async run() {
    return { content: [] };
  },
});

describe("other values refused before any SQL", () => {
  it.each([
    ["request", /input request "confirm" holds U\+0000 or an unpaired surrogate at params\.message/],
    ["result", /the workflow's result holds U\+0000 or an unpaired surrogate at content\.0\.text/],
    ["log", /ctx\.log entry holds U\+0000 or an unpaired surrogate at data\.raw/],
  ] as const)("a %s holding one fails the run with not_serialisable, naming where", async (what, message) => {
    await store.startWorker([asks]);
    const run = await store.create(asks, { what });
    const done = await store.waitForStatus(run.id, ["failed", "completed", "waiting_input"]);
    expect(done).toMatchObject({ status: "failed", attempt: 1, failure: { code: "not_serialisable" } });
    expect(String(done.failure?.message)).toMatch(message);
  });

  it("createRun refuses an input or a preflight answer holding one, naming the field, and writes nothing", async () => {
    const before = await store.sql`SELECT count(*)::int AS n FROM runs`;
    const attempts = [
      // With the definition (its schema runs first) and without (the web tier's path).
      () => store.create(noted, { note: "a\u0000b" }),
      () =>
        createRun(store.sql, { tenantId: TENANT, workflowName: "x", workflowVersion: 1, input: { deep: [{ text: "\udc00" }] } }),
      () =>
        createRun(store.sql, {
          tenantId: TENANT,
          workflowName: "x",
          workflowVersion: 1,
          input: {},
          answeredInputs: { confirm: { request: {}, response: { action: "accept", content: { note: "\u0000" } } } },
        }),
    ];
    const refusals = [];
    for (const attempt of attempts) refusals.push(await attempt().catch((error: unknown) => error));
    for (const refusal of refusals) expect(refusal).toBeInstanceOf(InvalidWorkflowInput);
    expect((refusals[0] as InvalidWorkflowInput).issues).toEqual([
      { path: "note", message: "strings must not contain U+0000 or unpaired surrogates" },
    ]);
    expect((refusals[1] as InvalidWorkflowInput).issues).toEqual([
      { path: "deep.0.text", message: "strings must not contain U+0000 or unpaired surrogates" },
    ]);
    expect((refusals[2] as InvalidWorkflowInput).message).toMatch(/preflight answer "confirm"/);
    expect(await store.sql`SELECT count(*)::int AS n FROM runs`).toEqual(before);
  });

  it("sendSignal and provideInput refuse a payload or answer holding one with not_serialisable, storing nothing", async () => {
    const run = await store.create(noted, { note: "ok" });
    const signal = await sendSignal(store.sql, { runId: run.id, name: "go", payload: { text: "\u0000" } }).catch((e) => e);
    expect(signal).toBeInstanceOf(WorkflowMisuse);
    expect(signal).toMatchObject({ causeCode: "not_serialisable", message: expect.stringMatching(/at text/) });
    const answer = await provideInput(store.sql, {
      runId: run.id,
      responses: { confirm: { action: "accept", content: { note: "\ud800" } } },
      actor: "t",
    }).catch((e) => e);
    expect(answer).toBeInstanceOf(WorkflowMisuse);
    expect(answer).toMatchObject({ causeCode: "not_serialisable", message: expect.stringMatching(/content\.note/) });
    const [signals] = await store.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM run_signals WHERE run_id = ${run.id}`;
    expect(signals?.n).toBe(0);
  });
});
