import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { ABANDONED_ROUND_REASON, cancelAbandonedRounds } from "../../lib/mcp";
import { answerPendingInput, atActiveTaskCap } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitForRunStatus } from "../helpers/runs";

/**
 * review3-mcp D3 (issue 29 item 5): an MRTR round an ordinary 2026-07-28 call hands back, bound to
 * its run, that the client never retries (mrtr.mdx: servers MUST NOT assume a retry) does not leave
 * the run waiting forever: once the round's requestState has expired, the retention pass's sweep
 * cancels the run — unless someone answered it meanwhile. Expiry is simulated by moving the round's
 * recorded expiry into the past (the requestState itself lives 10 minutes).
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  tenantId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

const client = () => modernClient(server.url, { token, capabilities: { elicitation: {} } });

/** An ordinary approve_expense call answered with an input_required round; its run. */
async function round(expenseId: string) {
  const answer = await client().result("tools/call", {
    name: "approve_expense",
    arguments: { expense_id: expenseId, amount: 1 },
  });
  expect(answer.resultType).toBe("input_required");
  const [run] = await sql<{ id: string; created_by_key_id: string }[]>`
    SELECT id, created_by_key_id FROM runs WHERE input->>'expense_id' = ${expenseId}`;
  return { state: answer.requestState as string, runId: run?.id as string, keyId: run?.created_by_key_id as string };
}

const expire = (runId: string) =>
  sql`UPDATE mcp_ordinary_rounds SET expires_at = now() - interval '1 second' WHERE run_id = ${runId}`;

describe("abandoned MRTR rounds", () => {
  it("cancel their run once the requestState has expired unretried; the run stops counting toward the key's cap", async () => {
    const { runId, keyId } = await round("AR-1");
    // Not yet expired: nothing happens.
    expect(await cancelAbandonedRounds(sql)).toMatchObject({ cancelled: 0 });
    expect((await sql`SELECT status FROM runs WHERE id = ${runId}`)[0]?.status).toBe("waiting_input");
    expect(await atActiveTaskCap(sql, keyId, 1)).toBe(true);
    await expire(runId);
    expect(await cancelAbandonedRounds(sql)).toEqual({ rounds: 1, cancelled: 1 });
    const [run] = await sql`SELECT status, status_message FROM runs WHERE id = ${runId}`;
    expect(run).toMatchObject({ status: "cancelled", status_message: ABANDONED_ROUND_REASON });
    expect(await atActiveTaskCap(sql, keyId, 1)).toBe(false);
    expect((await sql`SELECT count(*)::int AS n FROM mcp_ordinary_rounds WHERE run_id = ${runId}`)[0]?.n).toBe(0);
  });

  it("leaves the run alone when an operator answered it meanwhile", async () => {
    const { runId } = await round("AR-2");
    await answerPendingInput(sql, {
      taskId: runId,
      tenantId,
      key: "decision",
      response: { action: "accept", content: { decision: "approve" } },
      actor: "operator:test",
    });
    await expire(runId);
    expect(await cancelAbandonedRounds(sql)).toEqual({ rounds: 1, cancelled: 0 });
    await waitForRunStatus(sql, runId, "completed");
  });

  it("a retried round is closed: the retry's own outcome stands", async () => {
    const { runId, state } = await round("AR-3");
    const done = await client().result("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "AR-3", amount: 1 },
      inputResponses: { decision: { action: "accept", content: { decision: "approve" } } },
      requestState: state,
    });
    expect(done.structuredContent).toMatchObject({ decision: "approved" });
    expect((await sql`SELECT count(*)::int AS n FROM mcp_ordinary_rounds WHERE run_id = ${runId}`)[0]?.n).toBe(0);
    expect(await cancelAbandonedRounds(sql)).toEqual({ rounds: 0, cancelled: 0 });
  });
});
