import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findActiveRoute, insertRouteRevision } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRequest, modernRequest } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { runStatus, waitForRunStatus, wakeSleepingRun } from "../helpers/runs";
import { holdsFor, waitForValue } from "../helpers/wait-for";

/**
 * The ordinary path of the 2026-07-28 leg (no tasks extension): a run that asks for input comes
 * back as an `input_required` MRTR round bound to the run, answered by the client's retry with
 * `inputResponses`; a disconnect cancels the run, which the 2025-11-25 leg does not do.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let confToken: string;
const ELICIT_ONLY = { elicitation: {} };

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  const acme = await findTenantBySlug(sql, "tenant-acme");
  const conformance = await findTenantBySlug(sql, "conformance");
  confToken = (await createApiKey(sql, { tenantId: conformance?.id as string, name: "ordinary" })).token;
  const approve = await findActiveRoute(sql, acme?.id as string, "approve_expense");
  await insertRouteRevision(sql, {
    tenantId: acme?.id as string,
    toolName: "approve_fast",
    workflowName: "approve-expense",
    workflowVersion: 1,
    inputSchema: approve?.input_schema as Record<string, unknown>,
    taskSupport: "optional",
    syncDeadlineMs: 500,
  });
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

const runsOf = (expenseId: string) =>
  sql<
    { id: string; status: string; origin: string }[]
  >`SELECT id, status, origin FROM runs WHERE input->>'expense_id' = ${expenseId}`;

describe("modern ordinary path", () => {
  it("asks the run's question as an input_required round; the retry's inputResponses answer it and the result follows", async () => {
    const client = modernClient(server.url, { token, capabilities: ELICIT_ONLY });
    const args = { expense_id: "MO-1", amount: 21 };
    const first = await client.request("tools/call", { name: "approve_expense", arguments: args });
    expect(first.status).toBe(200);
    const round = first.body.result;
    expect(round).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        decision: { method: "elicitation/create", params: { mode: "form", requestedSchema: expect.any(Object) } },
      },
      requestState: expect.any(String),
    });
    const [run] = await runsOf("MO-1");
    expect(run).toMatchObject({ origin: "ordinary", status: "waiting_input" });

    // An answer that fails the requested schema writes nothing and is asked again, in a new round.
    const invalid = await client.request("tools/call", {
      name: "approve_expense",
      arguments: args,
      inputResponses: { decision: { action: "accept", content: { decision: "maybe" } } },
      requestState: round.requestState,
    });
    const again = invalid.body.result;
    expect(again).toMatchObject({ resultType: "input_required", inputRequests: { decision: expect.any(Object) } });
    expect(again.requestState).not.toBe(round.requestState);
    expect(await runStatus(sql, run?.id as string)).toBe("waiting_input");
    // The state is single use.
    const replay = await client.request("tools/call", {
      name: "approve_expense",
      arguments: args,
      inputResponses: { decision: { action: "accept", content: { decision: "approve" } } },
      requestState: round.requestState,
    });
    expect(replay.body.error.code).toBe(-32602);

    const done = await client.request("tools/call", {
      name: "approve_expense",
      arguments: args,
      inputResponses: { decision: { action: "accept", content: { decision: "approve", comment: "ok" } } },
      requestState: again.requestState,
    });
    expect(done.body.result).toMatchObject({
      resultType: "complete",
      structuredContent: { decision: "approved", comment: "ok" },
    });
    // One run for the whole exchange, answered as the key.
    expect((await runsOf("MO-1")).map((r) => r.status)).toEqual(["completed"]);
    const answered = await sql`SELECT answered_by FROM run_inputs WHERE run_id = ${run?.id as string}`;
    expect(answered[0]?.answered_by).toBe(`key:${/^rf_([0-9a-f]{16})_/.exec(token)?.[1]}`);
  });

  it("a state bound to one call's run cannot continue it with other arguments or another key", async () => {
    const client = modernClient(server.url, { token, capabilities: ELICIT_ONLY });
    const round = (await client.request("tools/call", { name: "approve_expense", arguments: { expense_id: "MO-2", amount: 2 } }))
      .body.result;
    const answer = { decision: { action: "accept", content: { decision: "approve" } } };
    const otherArgs = await client.request("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "MO-2", amount: 2_000 },
      inputResponses: answer,
      requestState: round.requestState,
    });
    expect(otherArgs.body.error.code).toBe(-32602);
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const other = (await createApiKey(sql, { tenantId: acme?.id as string, name: "other" })).token;
    const otherKey = await modernClient(server.url, { token: other, capabilities: ELICIT_ONLY }).request("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "MO-2", amount: 2 },
      inputResponses: answer,
      requestState: round.requestState,
    });
    expect(otherKey.body.error.code).toBe(-32602);
    expect((await runsOf("MO-2")).map((r) => r.status)).toEqual(["waiting_input"]);
  });

  it("puts in a round only what the request declared: a URL-only client gets the handle for a form question", async () => {
    const client = modernClient(server.url, { token, capabilities: { elicitation: { url: {} } } });
    const answer = await client.request("tools/call", { name: "approve_fast", arguments: { expense_id: "MO-3", amount: 3 } });
    expect(answer.body.result).toMatchObject({
      resultType: "complete",
      isError: false,
      structuredContent: { status: "input_required" },
    });
    expect(answer.body.result.inputRequests).toBeUndefined();
    expect((await runsOf("MO-3")).map((r) => r.status)).toEqual(["waiting_input"]);
  });

  it("a modern client that disconnects from an ordinary call cancels the run; a legacy one does not", async () => {
    const call = (era: "modern" | "legacy", label: string, signal: AbortSignal) => {
      const params = { name: "slow_compute", arguments: { seconds: 600, label } };
      const options = { token: confToken, id: 1 };
      const request =
        era === "modern"
          ? modernRequest("tools/call", params, { ...options, capabilities: {}, clientInfo: null })
          : legacyRequest("tools/call", params, options);
      return fetch(server.url, { ...request, signal }).catch(() => undefined);
    };
    const runOfLabel = (label: string) =>
      waitForValue(async () => (await sql<{ id: string }[]>`SELECT id FROM runs WHERE input->>'label' = ${label}`)[0]?.id, {
        describe: `the run of ${label}`,
      });

    const modern = new AbortController();
    const modernCall = call("modern", "dc-modern", modern.signal);
    const modernRun = await runOfLabel("dc-modern");
    await waitForRunStatus(sql, modernRun, "sleeping");
    modern.abort();
    await modernCall;
    await waitForRunStatus(sql, modernRun, "cancelled");
    const cancelled = await sql`SELECT payload FROM run_events WHERE run_id = ${modernRun} AND type = 'cancelled'`;
    expect(cancelled.map((row) => row.payload.actor)).toEqual([`key:${/^rf_([0-9a-f]{16})_/.exec(confToken)?.[1]}`]);

    const legacy = new AbortController();
    const legacyCall = call("legacy", "dc-legacy", legacy.signal);
    const legacyRun = await runOfLabel("dc-legacy");
    await waitForRunStatus(sql, legacyRun, "sleeping");
    legacy.abort();
    await legacyCall;
    await holdsFor(
      () => runStatus(sql, legacyRun),
      (status) => status === "sleeping",
      { describe: "the legacy run to keep going", forMs: 1_000 },
    );
    await wakeSleepingRun(sql, legacyRun);
    await waitForRunStatus(sql, legacyRun, "completed");
  });
});
