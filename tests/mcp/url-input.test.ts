import { ElicitationCompleteNotificationSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { answerPendingInput } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { connectLegacyClient, legacyRaw, legacySession, legacyStream } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitForRunStatus } from "../helpers/runs";
import { readSse } from "../helpers/sse";
import { holdsFor, waitFor } from "../helpers/wait-for";

/**
 * URL-mode input (DESIGN §8, lib/mcp/url-input.ts), legacy era over real HTTP: a client that
 * declared only `elicitation.url` is sent `elicitation/create` with `mode: "url"` naming the
 * question's console page, `<public URL>/inbox/<task>/<key>`; its own response is consent, never the
 * answer; an operator answers, the waiting call completes, and the client is told with
 * `notifications/elicitation/complete` (2025-11-25 client/elicitation.mdx).
 */
const PUBLIC_URL = "https://console.runifold.test";
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
  server = await startMcpTestServer(sql, { publicUrl: PUBLIC_URL });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

async function runOf(expenseId: string): Promise<string> {
  const rows = await waitFor(
    () => sql<{ id: string }[]>`SELECT id FROM runs WHERE input->>'expense_id' = ${expenseId}`,
    (found) => found.length === 1,
    { describe: `the run of expense ${expenseId}` },
  );
  return rows[0]?.id as string;
}

const answeredRows = async (runId: string) =>
  (await sql`SELECT answered_by FROM run_inputs WHERE run_id = ${runId} AND answered_at IS NOT NULL`).length;

const operatorAnswer = (runId: string, comment: string) =>
  answerPendingInput(sql, {
    taskId: runId,
    tenantId,
    key: "decision",
    response: { action: "accept", content: { decision: "approve", comment } },
    actor: "operator:url-test",
  });

describe("URL-mode input, legacy era", () => {
  it("the SDK v1 client declaring only elicitation.url is sent the question's page; the operator's answer completes the call", async () => {
    const asked: ElicitRequest["params"][] = [];
    const completed: string[] = [];
    const { client, log, close } = await connectLegacyClient(server.url, token, {
      capabilities: { elicitation: { url: {} } },
      onElicit: (request) => {
        asked.push(request.params);
        // Consent to open the page: not an answer.
        return { action: "accept" };
      },
    });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
      completed.push(notification.params.elicitationId);
    });
    try {
      const call = client.callTool({ name: "approve_expense", arguments: { expense_id: "URL-1", amount: 21 } });
      const runId = await runOf("URL-1");
      await waitFor(
        () => asked.length,
        (n) => n > 0,
        { describe: "the URL-mode elicitation/create" },
      );
      expect(asked).toEqual([
        {
          mode: "url",
          url: `${PUBLIC_URL}/inbox/${runId}/decision`,
          elicitationId: expect.stringMatching(new RegExp(`^rf-url:${runId}:[\\w-]+:decision$`)),
          message: expect.stringContaining("URL-1"),
        },
      ]);
      // The client's accept reached the server and answered nothing: the run still waits.
      const elicitationId = (asked[0] as { elicitationId: string }).elicitationId;
      await waitFor(
        () => log.find((entry) => (entry.message as { id?: unknown })?.id === elicitationId),
        (entry) => entry !== undefined,
        { describe: "the client's response to the URL-mode request" },
      );
      await holdsFor(
        () => answeredRows(runId),
        (n) => n === 0,
        { describe: "the consent not to be recorded as an answer", forMs: 500 },
      );
      expect(await operatorAnswer(runId, "on the page")).toMatchObject({ answered: true });
      const result = await call;
      expect(result).toMatchObject({ structuredContent: { expenseId: "URL-1", decision: "approved", comment: "on the page" } });
      expect(result.isError).toBeUndefined();
      // The completion notification names the elicitation (sent before the result, on the same stream).
      expect(completed).toEqual([elicitationId]);
    } finally {
      await close();
    }
  });

  it("tasks/result of a url-only session carries the URL; a response with content is still not an answer", async () => {
    const session = await legacySession(server.url, token, { elicitation: { url: {} } });
    const created = await legacyRaw(server.url, token).request(
      "tools/call",
      { name: "approve_expense", arguments: { expense_id: "URL-2", amount: 5 }, task: {} },
      { headers: session },
    );
    const runId = created.body.result.task.taskId as string;
    await waitForRunStatus(sql, runId, "waiting_input");
    const stream = await legacyStream(
      server.url,
      token,
      { jsonrpc: "2.0", id: "result-1", method: "tasks/result", params: { taskId: runId } },
      "2025-11-25",
      session,
    );
    const ask = await stream.next((event) => event.method === "elicitation/create");
    expect(ask.params).toMatchObject({
      mode: "url",
      url: `${PUBLIC_URL}/inbox/${runId}/decision`,
      elicitationId: ask.id,
      _meta: { "io.modelcontextprotocol/related-task": { taskId: runId } },
    });
    expect(ask.params.requestedSchema).toBeUndefined();
    // A client cannot answer a URL-mode question in-band, whatever it sends.
    const response = await legacyRaw(server.url, token).post(
      { jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { decision: "approve" } } },
      { headers: session },
    );
    expect(response.status).toBe(202);
    await holdsFor(
      () => answeredRows(runId),
      (n) => n === 0,
      { describe: "the in-band content to be ignored", forMs: 500 },
    );
    await operatorAnswer(runId, "by ops");
    const complete = await stream.next((event) => event.method === "notifications/elicitation/complete");
    expect(complete.params).toMatchObject({ elicitationId: ask.id });
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({ id: "result-1", result: { structuredContent: { decision: "approved" } } });
  });

  it("the standalone GET stream of a url-only session carries the link of its task's question, then its completion", async () => {
    const session = await legacySession(server.url, token, { elicitation: { url: {} } });
    const created = await legacyRaw(server.url, token).request(
      "tools/call",
      { name: "approve_expense", arguments: { expense_id: "URL-4", amount: 4 }, task: {} },
      { headers: session },
    );
    const runId = created.body.result.task.taskId as string;
    const controller = new AbortController();
    const response = await fetch(server.url, {
      method: "GET",
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${token}`,
        accept: "text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        ...session,
      },
    });
    const stream = readSse(response);
    stream.done.catch(() => {});
    try {
      const ask = await stream.next((event) => event.method === "elicitation/create");
      expect(ask.params).toMatchObject({ mode: "url", url: `${PUBLIC_URL}/inbox/${runId}/decision`, elicitationId: ask.id });
      await operatorAnswer(runId, "from the GET stream's link");
      const complete = await stream.next(
        (event) => event.method?.startsWith("notifications/elicitation/") || event.method === "notifications/cancelled",
      );
      expect(complete).toMatchObject({ method: "notifications/elicitation/complete", params: { elicitationId: ask.id } });
    } finally {
      controller.abort();
    }
  });

  it("a session that declared form mode too is asked the form, as before", async () => {
    const session = await legacySession(server.url, token, { elicitation: { form: {}, url: {} } });
    const stream = await legacyStream(
      server.url,
      token,
      {
        jsonrpc: "2.0",
        id: "call-3",
        method: "tools/call",
        params: { name: "approve_expense", arguments: { expense_id: "URL-3", amount: 1 } },
      },
      "2025-11-25",
      session,
    );
    const ask = await stream.next((event) => event.method === "elicitation/create");
    expect(ask.params).toMatchObject({ mode: "form", requestedSchema: expect.any(Object) });
    expect(ask.params.url).toBeUndefined();
    await operatorAnswer(await runOf("URL-3"), "form client");
    await stream.done;
  });
});

describe("URL-mode input, modern era (2026-07-28 MRTR)", () => {
  it("an ordinary call's round carries the page; the retry's accept is consent, and the retry returns once the operator answered", async () => {
    const client = modernClient(server.url, { token, capabilities: { elicitation: { url: {} } } });
    const args = { name: "approve_expense", arguments: { expense_id: "URL-M1", amount: 8 } };
    const round = (await client.request("tools/call", args)).body.result;
    const runId = await runOf("URL-M1");
    expect(round).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        decision: {
          method: "elicitation/create",
          params: { mode: "url", url: `${PUBLIC_URL}/inbox/${runId}/decision`, message: expect.stringContaining("URL-M1") },
        },
      },
      requestState: expect.any(String),
    });
    expect(round.inputRequests.decision.params.requestedSchema).toBeUndefined();
    // The retry carries consent (with content, even: still not an answer) and waits for the page.
    const retry = client.request("tools/call", {
      ...args,
      inputResponses: { decision: { action: "accept", content: { decision: "reject" } } },
      requestState: round.requestState,
    });
    let settled = false;
    void retry.then(() => {
      settled = true;
    });
    await holdsFor(
      async () => ({ settled, answered: await answeredRows(runId) }),
      (state) => !state.settled && state.answered === 0,
      { describe: "the retry to wait, nothing answered", forMs: 800 },
    );
    await operatorAnswer(runId, "modern page");
    expect((await retry).body.result).toMatchObject({
      resultType: "complete",
      structuredContent: { decision: "approved", comment: "modern page" },
    });
  });

  it("-32021 stays truthful: a URL-only ordinary call of a tenant without handles is served; a task call still needs form", async () => {
    await sql`UPDATE tenants SET handle_tools = false WHERE id = ${tenantId}`;
    try {
      const client = modernClient(server.url, { token, capabilities: { elicitation: { url: {} } } });
      const ordinary = await client.request("tools/call", {
        name: "approve_expense",
        arguments: { expense_id: "URL-M2", amount: 1 },
      });
      expect(ordinary.body.result).toMatchObject({ resultType: "input_required" });
      await operatorAnswer(await runOf("URL-M2"), "cleanup");
      const tasks = modernClient(server.url, {
        token,
        capabilities: { elicitation: { url: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } },
      });
      const asTask = await tasks.request("tools/call", {
        name: "approve_expense",
        arguments: { expense_id: "URL-M3", amount: 1 },
      });
      expect(asTask.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { form: {} } } } });
    } finally {
      await sql`UPDATE tenants SET handle_tools = true WHERE id = ${tenantId}`;
    }
  });
});
