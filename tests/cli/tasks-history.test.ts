import { defineWorkflow, provideInput, type RunHistory, sendSignal, type WorkflowContext } from "@runifold/sdk";
import { ReplayDivergence, replayHistory } from "@runifold/sdk/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createKey } from "../../lib/admin";
import { engineStore, TENANT } from "../engine/support/harness";
import { lastJson, runCli } from "./run-cli";

/**
 * Replay tests (issue 32): `runifold tasks history <id> --json` exports a run's durable operations,
 * and `replayHistory` (`@runifold/sdk/testing`) runs a definition against that export with no
 * database — passing for the code that made it, failing with the operation and both sides for code
 * that changed — so a team's CI catches a non-deterministic change before it fails live runs.
 */
const store = engineStore();
const OTHER = "00000000-0000-4000-8000-00000000e0f2";

/** Step bodies count here: a replay must never execute one. */
let executions = 0;
const body =
  <T>(value: T) =>
  () => {
    executions += 1;
    return value;
  };

const confirm = {
  method: "elicitation/create",
  params: { message: "Go on?", requestedSchema: { type: "object", properties: {} } },
} as const;

/** The ledger as it ran: every kind of durable operation, a loop of one key among them. */
function ledger(variant: { reserveKey?: string; before?: boolean; charges?: number } = {}) {
  return defineWorkflow({
    name: "ledger",
    version: 1,
    input: z.object({ amount: z.number() }),
    async run(ctx: WorkflowContext, input: { amount: number }) {
      const batch = await ctx.uuid();
      if (variant.before) await ctx.step("check-fraud", body(true));
      const held = await ctx.step(variant.reserveKey ?? "reserve", body(input.amount));
      const charged: number[] = [];
      for (let i = 1; i <= (variant.charges ?? 2); i++) charged.push(await ctx.step("charge", body(i)));
      await ctx.requestInput("confirm", confirm);
      const settled = await ctx.waitForSignal<{ ref: string }>("settle");
      await ctx.sleep("cool", 20);
      return {
        content: [{ type: "text", text: "done" }],
        structuredContent: { batch, held, charged, ref: settled.received ? settled.payload.ref : null },
      };
    },
  });
}
const original = ledger();

async function exportHistory(taskId: string, extra: string[] = [], env: Record<string, string> = {}) {
  return runCli(["tasks", "history", taskId, ...extra], { DATABASE_URL: store.url, ...env });
}

beforeAll(async () => {
  await store.sql`INSERT INTO tenants (id, slug, name) VALUES (${OTHER}, 'history-other', 'Other')`;
});

describe("runifold tasks history and replayHistory", { timeout: 120_000 }, () => {
  it("exports a finished run's operations in order and replays them: the same code passes, a changed one fails", async () => {
    await store.startWorker([original]);
    const run = await store.create(original, { amount: 7 });
    await store.waitForStatus(run.id, "waiting_input");
    await provideInput(store.sql, { runId: run.id, responses: { confirm: { action: "accept", content: {} } }, actor: "test" });
    await store.waitForStatus(run.id, "waiting_signal");
    expect(await sendSignal(store.sql, { runId: run.id, name: "settle", payload: { ref: "r-1" } })).toBe(true);
    expect((await store.waitForStatus(run.id, ["completed", "failed"])).status).toBe("completed");

    const exported = await exportHistory(run.id, ["--json"]);
    expect(exported.code).toBe(0);
    const history = lastJson(exported) as RunHistory;
    expect(history).toMatchObject({
      format: "runifold.history/1",
      taskId: run.id,
      workflow: { name: "ledger", version: 1 },
      status: "completed",
      input: { amount: 7 },
    });
    expect(history.operations.map((op) => [op.seq, op.kind, op.key])).toEqual([
      [0, "uuid", "uuid:1"],
      [1, "step", "reserve"],
      [2, "step", "charge"],
      [3, "step", "repeat:charge#2"],
      [null, "input", "input:confirm"],
      [5, "signal", "signal:settle#0"],
      [6, "sleep", "sleep:cool"],
    ]);
    expect(history.operations.find((op) => op.key === "repeat:charge#2")?.value).toBe(2);
    expect(history.operations.find((op) => op.key === "input:confirm")?.value).toEqual({ action: "accept", content: {} });

    const plain = await exportHistory(run.id);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/ledger@1, completed/);
    expect(plain.stdout).toMatch(/3\s+step\s+repeat:charge#2\s+2/);

    const before = executions;
    const [result] = await store.sql<{ payload: { result: unknown } }[]>`
      SELECT payload FROM run_events WHERE run_id = ${run.id} AND type = 'completed'`;
    const report = await replayHistory(original, history);
    expect(report).toMatchObject({ replayed: 7, reachedEnd: false });
    expect(report.result).toEqual(result?.payload.result);
    expect(executions).toBe(before); // nothing ran: every value came from the history

    const renamed = replayHistory(ledger({ reserveKey: "hold" }), history);
    await expect(renamed).rejects.toBeInstanceOf(ReplayDivergence);
    await expect(renamed).rejects.toMatchObject({
      operation: 2,
      expected: { key: "reserve", kind: "step" },
      got: { key: "hold", kind: "step" },
      message: expect.stringMatching(
        /diverged at operation #2: the history has ctx\.step\("reserve"\), and the code calls ctx\.step\("hold"\)/,
      ),
    });
    await expect(replayHistory(ledger({ before: true }), history)).rejects.toMatchObject({
      operation: 2,
      expected: { key: "reserve" },
      got: { key: "check-fraud" },
    });
    await expect(replayHistory(ledger({ charges: 3 }), history)).rejects.toMatchObject({
      operation: 5,
      got: { key: "repeat:charge#3", kind: "step" },
      message: expect.stringMatching(
        /diverged at operation #5: the code calls ctx\.step\("charge"\) \(call 3\): the history does not have it, and the run completed without it/,
      ),
    });
    await expect(replayHistory(ledger({ charges: 1 }), history)).rejects.toBeInstanceOf(ReplayDivergence);
    expect(executions).toBe(before);
  });

  it("replays an unfinished run up to where its history ends", async () => {
    await store.startWorker([original]);
    const run = await store.create(original, { amount: 3 });
    await store.waitForStatus(run.id, "waiting_input");
    const history = lastJson(await exportHistory(run.id, ["--json"])) as RunHistory;
    expect(history.status).toBe("waiting_input");
    expect(await replayHistory(original, history)).toEqual({ replayed: 4, reachedEnd: true });
    await expect(replayHistory(ledger({ reserveKey: "hold" }), history)).rejects.toMatchObject({ operation: 2 });
  });

  it("is scoped like the other tasks verbs: another tenant's task is not found, by --tenant or by API key", async () => {
    await store.startWorker([original]);
    const run = await store.create(original, { amount: 1 });
    await store.waitForStatus(run.id, "waiting_input");
    const actor = { kind: "cli", user: "test", host: "test" } as const;
    const own = await createKey({ sql: store.sql, actor }, { tenantId: TENANT, name: "own" });
    const foreign = await createKey({ sql: store.sql, actor }, { tenantId: OTHER, name: "foreign" });
    const [byTenant, byOtherTenant, byKey, byOtherKey] = await Promise.all([
      exportHistory(run.id, ["--json", "--tenant", "engine"]),
      exportHistory(run.id, ["--json", "--tenant", "history-other"]),
      exportHistory(run.id, ["--json"], { RUNIFOLD_KEY: own.token }),
      exportHistory(run.id, ["--json"], { RUNIFOLD_KEY: foreign.token }),
    ]);
    expect(byTenant.code).toBe(0);
    expect(byKey.code).toBe(0);
    expect(lastJson(byKey).taskId).toBe(run.id);
    for (const refused of [byOtherTenant, byOtherKey]) {
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(new RegExp(`No task ${run.id}`));
    }
  });
});
