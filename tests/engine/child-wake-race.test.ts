import { createRun } from "@runifold/sdk";
import { awaitChildren, claimRuns, startChild } from "@runifold/sdk/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineStore, TENANT } from "./support/harness";

/**
 * The lost wake-up ctx.child(...).result() must never have (migration 0039, ops/await-children.ts):
 * a child ending while its parent parks. The child's end locks the parent's row (trigger
 * runs_child_ended) and the park takes the same lock first, so either the park waits for the end
 * and sees the child ended, or the end waits for the park and queues the parent. Both orders are
 * played here on real connections, holding one transaction open at the point that matters.
 */
const store = engineStore();
let other: postgres.Sql;

beforeAll(() => {
  other = postgres(store.url, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await other?.end();
});

/** A leased parent (as a worker holds it) with one started child. */
type Lease = { runId: string; workerId: string; attempt: number; leaseMs: number };

async function parentWithChild(name: string): Promise<{ lease: Lease; childId: string }> {
  const parent = await createRun(store.sql, { tenantId: TENANT, workflowName: name, workflowVersion: 1, input: {} });
  const [claimed] = await claimRuns(store.sql, { workerId: "race", workflowKeys: [`${name}@1`], limit: 1, leaseMs: 60_000 });
  expect(claimed?.id).toBe(parent.id);
  const lease = { runId: parent.id, workerId: "race", attempt: claimed?.attempt as number, leaseMs: 60_000 };
  const started = await startChild(store.sql, lease, {
    key: "kid",
    seq: 0,
    tenantId: TENANT,
    workflowName: "race-child",
    workflowVersion: 1,
    input: {},
  });
  if (started.kind === "lease_lost") throw new Error("lease lost");
  return { lease, childId: started.start.taskId };
}

async function statusOf(id: string) {
  const [row] = await store.sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ${id}`;
  return row?.status;
}

describe("a child's end and its parent's park", () => {
  it("the park waits for a child's end in flight and records it instead of parking", async () => {
    const { lease, childId } = await parentWithChild("race-parent-a");
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let ended = false;
    // The child's terminal write, committed only once the park is under way.
    const end = other.begin(async (tx) => {
      await tx`UPDATE runs SET status = 'completed', claimable_at = NULL, finished_at = now() WHERE id = ${childId}`;
      await tx`INSERT INTO run_events (run_id, type, payload) VALUES (${childId}, 'completed', ${tx.json({ result: { content: [] } })})`;
      ended = true;
      await held;
    });
    await expect.poll(() => ended).toBe(true);
    let settled = false;
    const park = awaitChildren(store.sql, lease, [{ key: "kid", taskId: childId, seq: 1 }]).finally(() => {
      settled = true;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(settled).toBe(false); // blocked on the parent's row, which the child's end locked
    } finally {
      release(); // never leave the child's transaction open, even when the check failed
      await end;
    }
    const outcome = await park;
    expect(outcome).toMatchObject({ kind: "checked", parked: false });
    expect(outcome.kind === "checked" && outcome.ended.get("kid")).toEqual({ status: "completed", result: { content: [] } });
    expect(await statusOf(lease.runId)).toBe("leased");
  });

  it("a child ending after the park queues the parent", async () => {
    const { lease, childId } = await parentWithChild("race-parent-b");
    const outcome = await awaitChildren(store.sql, lease, [{ key: "kid", taskId: childId, seq: 1 }]);
    expect(outcome).toMatchObject({ kind: "checked", parked: true });
    expect(await statusOf(lease.runId)).toBe("waiting_signal");
    await store.sql`UPDATE runs SET status = 'failed', claimable_at = NULL, finished_at = now() WHERE id = ${childId}`;
    expect(await statusOf(lease.runId)).toBe("queued");
    expect(await store.events(lease.runId, "child_ended")).toEqual([{ payload: { taskId: childId, status: "failed" } }]);
  });
});
