import { defineWorkflow, type InputRequest, isControlFlow, provideInputAsAdmin, sendSignal } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { listInbox, readTaskRecord } from "../../lib/tasks";
import { waitFor } from "../helpers/wait-for";
import { engineStore, TENANT } from "./support/harness";

/** What the engine does with waits the API invites (review 3: E3 orphaned requests, E4 races of waits). */
const store = engineStore();

const ask = (message: string): InputRequest => ({
  method: "elicitation/create",
  params: { message, requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
});

/** "Ask the manager for a while, else ask the director": the first request times out and is caught. */
const escalate = defineWorkflow({
  name: "escalate",
  version: 1,
  input: z.object({ managerMs: z.number().int() }),
  async run(ctx, input) {
    let who = "manager";
    let answer: Awaited<ReturnType<typeof ctx.requestInput>>;
    try {
      answer = await ctx.requestInput("manager", ask("Manager: approve?"), { timeoutMs: input.managerMs });
    } catch (error) {
      if (isControlFlow(error)) throw error;
      who = "director";
      answer = await ctx.requestInput("director", ask("Director: approve?"));
    }
    return { content: [{ type: "text", text: who }], structuredContent: { who, ok: answer.content?.ok ?? null } };
  },
});

const pair = defineWorkflow({
  name: "pair",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const answers = await ctx.requestInputs({ a: ask("A?"), b: ask("B?") });
    return { content: [{ type: "text", text: Object.keys(answers).join(",") }] };
  },
});

/** The input requests tasks/get shows the run's client. */
async function pendingKeys(runId: string): Promise<string[] | null> {
  const task = await readTaskRecord(store.sql, { tenantId: TENANT, taskId: runId });
  return task?.pendingInputs ? Object.keys(task.pendingInputs) : null;
}

describe("a request the workflow moved past (E3)", () => {
  it("resumes on the answer to the question it asks now; the expired one is shown to nobody and takes no answer", async () => {
    await store.startWorker([escalate]);
    const run = await store.create(escalate, { managerMs: 300 });
    await waitFor(
      () => store.sql`SELECT wait_detail FROM runs WHERE id = ${run.id} AND status = 'waiting_input'`,
      (rows) => (rows[0]?.wait_detail as { input?: { keys?: string[] } } | undefined)?.input?.keys?.[0] === "director",
      { describe: "the run to ask the director" },
    );
    // Clients (tasks/get's input requests) and operators (the inbox) see the director's question only.
    expect(await pendingKeys(run.id)).toEqual(["director"]);
    const inbox = await listInbox(store.sql, { scope: null, limit: 50 });
    expect(inbox.filter((row) => row.run_id === run.id).map((row) => row.key)).toEqual(["director"]);
    // A late answer to the expired question is not taken (it was never going to be read).
    expect(
      await provideInputAsAdmin(store.sql, { runId: run.id, responses: { manager: { action: "accept" } }, actor: "t" }),
    ).toEqual({ found: true, accepted: [], resumed: false });
    const answered = await provideInputAsAdmin(store.sql, {
      runId: run.id,
      responses: { director: { action: "accept", content: { ok: true } } },
      actor: "t",
    });
    expect(answered).toEqual({ found: true, accepted: ["director"], resumed: true });
    const done = await store.waitForStatus(run.id, ["completed", "failed"], 10_000);
    expect(done.status).toBe("completed");
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({
      result: { structuredContent: { who: "director", ok: true } },
    });
    // The timeline says the manager's request timed out unanswered.
    expect((await store.events(run.id, "input_timed_out")).map((e) => e.payload)).toEqual([{ key: "manager", answered: false }]);
  });

  it("a wait for two answers resumes on the second; after the first, the wait names the key it still needs", async () => {
    await store.startWorker([pair]);
    const run = await store.create(pair, {});
    await store.waitForStatus(run.id, "waiting_input");
    const first = await provideInputAsAdmin(store.sql, { runId: run.id, responses: { a: { action: "accept" } }, actor: "t" });
    expect(first).toEqual({ found: true, accepted: ["a"], resumed: false });
    const [row] = await store.sql`SELECT status, wait_detail FROM runs WHERE id = ${run.id}`;
    expect(row).toMatchObject({ status: "waiting_input", wait_detail: { input: { keys: ["b"] } } });
    expect(await pendingKeys(run.id)).toEqual(["b"]);
    const second = await provideInputAsAdmin(store.sql, { runId: run.id, responses: { b: { action: "decline" } }, actor: "t" });
    expect(second).toEqual({ found: true, accepted: ["b"], resumed: true });
    expect((await store.waitForStatus(run.id, ["completed", "failed"])).status).toBe("completed");
  });
});

/** The approval-or-timeout idiom written as a race of two waits (refused), and as one wait with a timeout. */
const approval = defineWorkflow({
  name: "approval",
  version: 1,
  input: z.object({ shape: z.enum(["race", "all", "timeout"]) }),
  async run(ctx, input) {
    let winner: string;
    if (input.shape === "timeout") {
      const signal = await ctx.waitForSignal("approve", { timeoutMs: 3_000 });
      winner = signal.received ? "signal" : "timer";
    } else if (input.shape === "race") {
      winner = await Promise.race([
        ctx.waitForSignal("approve").then(() => "signal"),
        ctx.sleep("deadline", 3_000).then(() => "timer"),
      ]);
    } else {
      await Promise.all([ctx.waitForSignal("approve"), ctx.requestInput("confirm", ask("Confirm?"))]);
      winner = "both";
    }
    return { content: [{ type: "text", text: winner }], structuredContent: { winner } };
  },
});

describe("waits that race (E4)", () => {
  it.each([
    ["race", /ctx\.sleep\("deadline"\) was called while ctx\.waitForSignal\("approve"\) is pending/],
    ["all", /ctx\.requestInput\("confirm"\) was called while ctx\.waitForSignal\("approve"\) is pending/],
  ] as const)(
    "refuses Promise.%s of two waits at the call: the run fails at once, never parks on one of them",
    async (shape, message) => {
      await store.startWorker([approval]);
      const run = await store.create(approval, { shape });
      const done = await store.waitForStatus(run.id, ["failed", "completed", "sleeping", "waiting_signal", "waiting_input"]);
      expect(done).toMatchObject({ status: "failed", attempt: 1, failure: { code: "invalid_argument" } });
      expect(String(done.failure?.message)).toMatch(message);
      expect(String(done.failure?.message)).toMatch(/waitForSignal\(name, \{ timeoutMs \}\)/);
      const parks =
        await store.sql`SELECT 1 FROM run_events WHERE run_id = ${run.id} AND type IN ('timer_set', 'waiting_signal', 'input_requested')`;
      expect(parks).toHaveLength(0);
    },
  );

  it("a signal sent as soon as the run waits with a timeout wins at once, not at the timeout", async () => {
    await store.startWorker([approval]);
    const run = await store.create(approval, { shape: "timeout" });
    await store.waitForStatus(run.id, "waiting_signal");
    const sent = performance.now();
    expect(await sendSignal(store.sql, { runId: run.id, name: "approve", payload: {} })).toBe(true);
    await store.waitForStatus(run.id, "completed");
    expect(performance.now() - sent).toBeLessThan(2_000);
    expect((await store.terminalPayload(run.id))?.payload).toMatchObject({ result: { structuredContent: { winner: "signal" } } });
  });
});
