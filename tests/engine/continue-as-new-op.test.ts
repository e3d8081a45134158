import { randomUUID } from "node:crypto";
import { continueRunAsNew } from "@runifold/sdk/testing";
import { describe, expect, it } from "vitest";
import { poller } from "../fixtures/continue-as-new-workflows";
import { engineStore, TENANT } from "./support/harness";

/**
 * The transition itself (packages/sdk/src/ops/continue-as-new.ts), on a run this test leases by hand:
 * fenced by the lease, once per lease, and what it does with the generation's approvals.
 */
const store = engineStore();

type Lease = Parameters<typeof continueRunAsNew>[1];

async function leased(attempt: number, runId?: string): Promise<Lease> {
  const id = runId ?? (await store.create(poller, { gen: 0, total: 2, per: 1 })).id;
  await store.sql`
    UPDATE runs SET status = 'leased', lease_owner = 'test-worker', attempt = ${attempt},
           lease_expires_at = now() + interval '1 minute', claimable_at = NULL
    WHERE id = ${id}`;
  return { runId: id, workerId: "test-worker", attempt, leaseMs: 60_000 };
}

async function approval(runId: string, key: string, status: "open" | "approved") {
  await store.sql`
    INSERT INTO approvals (run_id, key, tenant_id, message, policy, args_digest, details_digest, policy_digest, status, outcome)
    VALUES (${runId}, ${key}, ${TENANT}, 'ship?', '{}'::jsonb, 'a', 'd', 'p', ${status}, ${status === "open" ? null : status})`;
  if (status !== "open")
    await store.sql`
      INSERT INTO approval_decisions (run_id, key, operator_id, email, channel, decision)
      VALUES (${runId}, ${key}, ${randomUUID()}, 'alice@example.com', 'console', 'approve')`;
}

const keysOf = async (runId: string) => ({
  approvals: (await store.sql<{ key: string }[]>`SELECT key FROM approvals WHERE run_id = ${runId} ORDER BY key`).map(
    (r) => r.key,
  ),
  decisions: (await store.sql<{ key: string }[]>`SELECT key FROM approval_decisions WHERE run_id = ${runId} ORDER BY key`).map(
    (r) => r.key,
  ),
});

describe("continueRunAsNew", () => {
  it("happens once per lease: the same lease asking again finds the run queued and changes nothing", async () => {
    const lease = await leased(1);
    await store.sql`INSERT INTO run_steps (run_id, key, output, seq) VALUES (${lease.runId}, 'tick', '1', 1)`;
    expect(await continueRunAsNew(store.sql, lease, { inputJson: '{"gen":1,"total":2,"per":1}' })).toEqual({
      kind: "continued",
      generation: 1,
    });
    expect(await continueRunAsNew(store.sql, lease, { inputJson: '{"gen":2,"total":2,"per":1}' })).toEqual({
      kind: "lease_lost",
    });
    const [run] = await store.sql<{ status: string; generation: number; input: { gen: number }; checkpoints: number }[]>`
      SELECT status, generation, input, checkpoints FROM runs WHERE id = ${lease.runId}`;
    expect(run).toMatchObject({ status: "queued", generation: 1, input: { gen: 1 }, checkpoints: 0 });
    const [steps] = await store.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM run_steps WHERE run_id = ${lease.runId}`;
    expect(steps?.n).toBe(0);
  });

  it("is refused while an approval is open, and moves each generation's settled approvals under its own suffix", async () => {
    const first = await leased(1);
    await approval(first.runId, "ship", "open");
    const refused = await continueRunAsNew(store.sql, first, { inputJson: "{}" });
    expect(refused).toMatchObject({ kind: "refused" });
    expect((await keysOf(first.runId)).approvals).toEqual(["ship"]);
    await store.sql`UPDATE approvals SET status = 'approved', outcome = 'approved' WHERE run_id = ${first.runId}`;
    await store.sql`
      INSERT INTO approval_decisions (run_id, key, operator_id, email, channel, decision)
      VALUES (${first.runId}, 'ship', ${randomUUID()}, 'alice@example.com', 'console', 'approve')`;
    expect(await continueRunAsNew(store.sql, first, { inputJson: "{}" })).toMatchObject({ kind: "continued", generation: 1 });
    expect(await keysOf(first.runId)).toEqual({ approvals: ["ship@g0"], decisions: ["ship@g0"] });
    // Generation 1 asks with the same key; its transition moves only its own approval.
    const second = await leased(2, first.runId);
    await approval(first.runId, "ship", "approved");
    expect(await continueRunAsNew(store.sql, second, { inputJson: "{}" })).toMatchObject({ kind: "continued", generation: 2 });
    expect(await keysOf(first.runId)).toEqual({ approvals: ["ship@g0", "ship@g1"], decisions: ["ship@g0", "ship@g1"] });
  });
});
