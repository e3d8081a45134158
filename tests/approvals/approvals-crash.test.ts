import { verifyReceipt } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";

/** A worker killed with SIGKILL while an approval is half decided loses nothing and counts nothing twice. */
let fx: ApprovalFixture;
beforeAll(async () => {
  fx = await startApprovalFixture({ worker: false });
});
afterAll(async () => {
  await fx?.close();
});

const spawnWorker = () =>
  spawnTs("tests/approvals/approval-worker-process.ts", {
    DATABASE_URL: fx.url,
    NEXTAUTH_SECRET: process.env.NEXTAUTH_SECRET as string,
    RUNIFOLD_LEASE_MS: "1500",
    RUNIFOLD_POLL_MS: "100",
  });

describe("approvals across a killed worker", { timeout: 90_000 }, () => {
  it("keeps the first decision through a SIGKILL, settles on the second, and the next worker finishes with both and one receipt", async () => {
    const first = spawnWorker();
    let second: ReturnType<typeof spawnWorker> | undefined;
    try {
      const taskId = await fx.start({ approvers: { groups: ["finance"] }, quorum: 2 });
      await fx.parked(taskId, 30_000);
      expect((await fx.decide(fx.b.token, taskId, "approve")).status).toBe(201);
      // The settling decision queues the run; the worker is killed wherever it is in taking it up.
      expect((await fx.decide(fx.c.token, taskId, "approve")).status).toBe(201);
      first.kill("SIGKILL");
      await waitForExit(first);
      expect((await fx.decide(fx.b.token, taskId, "approve")).status).toBe(409);

      second = spawnWorker();
      const [done] = await waitFor(
        () => fx.sql`SELECT payload->'result' AS result FROM run_events WHERE run_id = ${taskId} AND type = 'completed'`,
        (rows) => rows.length === 1,
        { describe: "the run to complete on the next worker", timeoutMs: 30_000 },
      );
      expect(done?.result.structuredContent).toMatchObject({ outcome: "approved" });
      expect(done?.result.structuredContent.decisions.map((d: { email: string }) => d.email)).toEqual([
        "b@acme.test",
        "c@acme.test",
      ]);
      expect(Number((await fx.sql`SELECT count(*) AS n FROM approval_decisions WHERE run_id = ${taskId}`)[0]?.n)).toBe(2);
      const settled = await fx.sql`SELECT 1 FROM run_events WHERE run_id = ${taskId} AND type = 'approval_settled'`;
      expect(settled).toHaveLength(1);
      const [stored] = await fx.sql<{ receipt: string }[]>`SELECT receipt FROM approvals WHERE run_id = ${taskId}`;
      const receipts = done?.result._meta?.["io.runifold/approvals"] as string[];
      expect(receipts).toEqual([stored?.receipt]);
      const jwks = await (await fetch(`${fx.origin}/.well-known/runifold/approvals-jwks.json`)).json();
      expect(await verifyReceipt(receipts[0] as string, jwks)).toMatchObject({ valid: true, payload: { outcome: "approved" } });
    } finally {
      first.kill("SIGKILL");
      second?.kill("SIGTERM");
      if (second) await waitForExit(second);
    }
  });
});
