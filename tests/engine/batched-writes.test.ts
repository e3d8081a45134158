import { createRun, defineWorkflow, taskIdsOf } from "@runifold/sdk";
import { checkpointSteps, claimRuns, finishRuns } from "@runifold/sdk/testing";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";

/**
 * The worker's coalesced writes (packages/sdk/src/leased-writes.ts): one statement checkpoints or
 * finishes many runs, and each row is still fenced by its own lease.
 */
const oneStep = defineWorkflow({
  name: "batched_writes",
  version: 1,
  input: z.object({ n: z.number() }),
  async run(ctx, input) {
    await ctx.step("s", async () => input.n);
    return { content: [] };
  },
});

let db: { sql: postgres.Sql; url: string; drop(): Promise<void> };
let tenantId: string;
const WORKER = "batch-test-worker";

async function claimed(count: number) {
  for (let n = 0; n < count; n++)
    await createRun(db.sql, { tenantId, workflowName: oneStep.name, workflowVersion: 1, input: { n }, definition: oneStep });
  const runs = await claimRuns(db.sql, { workerId: WORKER, workflowKeys: ["batched_writes@1"], limit: count, leaseMs: 60_000 });
  expect(runs).toHaveLength(count);
  return runs.map((run) => ({ runId: run.id, workerId: WORKER, attempt: run.attempt, leaseMs: 60_000 }));
}

beforeAll(async () => {
  db = await freshDatabase();
  const [row] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('batch', 'batch') RETURNING id`;
  tenantId = row?.id as string;
});
afterAll(async () => db?.drop());

describe("batched checkpoints and results", () => {
  it("checkpoints every run whose lease holds, refuses the one whose lease does not, and keeps each output exact", async () => {
    const [a, b, c] = await claimed(3);
    if (!a || !b || !c) throw new Error("three runs");
    const awkward = JSON.stringify({ text: 'quote " backslash \\ {brace}, comma', emoji: "💡", nested: [1, { x: null }] });
    const held = await db.sql.begin(async (tx) => {
      const answer = await checkpointSteps(tx, [
        { lease: a, step: { key: "s", outputJson: awkward, seq: 0 } },
        { lease: { ...b, attempt: b.attempt + 1 }, step: { key: "s", outputJson: "2", seq: 0 } },
        { lease: c, step: { key: "s", outputJson: "3", seq: null } },
      ]);
      // No indexed column changed: the run rows were updated in place (HOT), touching no index.
      const [hot] = await tx<{ n: number }[]>`SELECT pg_stat_get_xact_tuples_hot_updated('runs'::regclass)::int AS n`;
      expect(hot?.n).toBe(2);
      return answer;
    });
    expect(held).toEqual([true, false, true]);
    const steps = await db.sql<{ run_id: string; output: unknown; seq: number | null }[]>`
      SELECT run_id, output, seq FROM run_steps WHERE run_id IN (${a.runId}, ${b.runId}, ${c.runId}) ORDER BY seq NULLS LAST`;
    expect(steps).toEqual([
      { run_id: a.runId, output: JSON.parse(awkward), seq: 0 },
      { run_id: c.runId, output: 3, seq: null },
    ]);
    const events =
      await db.sql`SELECT run_id FROM run_events WHERE type = 'step_completed' AND run_id IN (${a.runId}, ${b.runId}, ${c.runId})`;
    expect(events.map((e) => e.run_id).sort()).toEqual([a.runId, c.runId].sort());
  });

  it("finishes completed and failed runs in one statement, notifies each, and leaves a run whose lease is gone", async () => {
    const [done, failed, stale] = await claimed(3);
    if (!done || !failed || !stale) throw new Error("three runs");
    const notified: string[] = [];
    const listener = await db.sql.listen("runifold_task", (payload) => notified.push(payload));
    try {
      const answer = await finishRuns(db.sql, [
        { lease: done, outcome: { status: "completed", result: { content: [{ type: "text", text: "ok" }] } } },
        {
          lease: failed,
          outcome: {
            status: "failed",
            error: { code: -32603, message: "it broke" },
            cause: { code: "step_failed", message: "private detail", attempt: 1 },
          },
        },
        { lease: { ...stale, workerId: "someone-else" }, outcome: { status: "completed", result: { content: [] } } },
      ]);
      expect(answer).toEqual([true, true, false]);
      // One notification for the batch, naming both finished runs (not the refused one).
      await waitFor(
        () => [...notified],
        (seen) => seen.length >= 1,
        { describe: "the batch's task notification" },
      );
      expect(notified).toHaveLength(1);
      expect(taskIdsOf(notified[0] as string).sort()).toEqual([done.runId, failed.runId].sort());
    } finally {
      await listener.unlisten();
    }
    const rows = await db.sql<{ id: string; status: string; status_message: string | null; failure: unknown }[]>`
      SELECT id, status, status_message, failure FROM runs WHERE id IN (${done.runId}, ${failed.runId}, ${stale.runId})`;
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(done.runId)).toMatchObject({ status: "completed", status_message: null, failure: null });
    expect(byId.get(failed.runId)).toMatchObject({
      status: "failed",
      status_message: "it broke",
      failure: { code: "step_failed", message: "private detail" },
    });
    expect(byId.get(stale.runId)?.status).toBe("leased");
    const [event] = await db.sql<{ payload: unknown }[]>`
      SELECT payload FROM run_events WHERE run_id = ${failed.runId} AND type = 'failed'`;
    expect(event?.payload).toEqual({ error: { code: -32603, message: "it broke" } });
  });
});
