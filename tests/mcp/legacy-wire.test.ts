import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertRouteRevision } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw, legacySession, legacyStream } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { runStatus, waitForHandleExpiry, waitForRunStatus, wakeSleepingRun } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";

/**
 * The legacy leg on the wire, with raw JSON-RPC (no SDK): exact codes, shapes and HTTP statuses.
 * Each test names the checklist items (docs/mcp-legacy.md, L1–L20) it covers.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let acmeToken: string;
let confToken: string;
let sameTenantOtherKey: string;
const RELATED = "io.modelcontextprotocol/related-task";
const ALLOWED: Record<string, string[]> = {
  working: ["working", "input_required", "completed", "failed", "cancelled"],
  input_required: ["input_required", "working", "completed", "failed", "cancelled"],
  completed: ["completed"],
  failed: ["failed"],
  cancelled: ["cancelled"],
};

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  acmeToken = (await seedDemo(sql)).apiKey as string;
  const conformance = await findTenantBySlug(sql, "conformance");
  confToken = (await createApiKey(sql, { tenantId: conformance?.id as string, name: "wire" })).token;
  sameTenantOtherKey = (await createApiKey(sql, { tenantId: conformance?.id as string, name: "another-key" })).token;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

const runCount = async () => Number((await sql`SELECT count(*)::int AS n FROM runs`)[0]?.n);

async function createTask(token: string, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const response = await legacyRaw(server.url, token).request("tools/call", { name, arguments: args, task: {}, ...extra });
  expect(response.status).toBe(200);
  expect(response.body.result.task.status).toBe("working");
  return response.body.result.task.taskId as string;
}

async function waitForStatus(token: string, taskId: string, statuses: string[]) {
  const raw = legacyRaw(server.url, token);
  return waitFor(
    async () => (await raw.request("tasks/get", { taskId })).body.result,
    (task) => statuses.includes(task?.status),
    { describe: `task ${taskId} to be ${statuses.join(" or ")}`, everyMs: 100 },
  );
}

function expectTransitionsAllowed(statuses: string[]) {
  for (let i = 1; i < statuses.length; i++) expect(ALLOWED[statuses[i - 1] as string]).toContain(statuses[i]);
}

describe("legacy leg on the wire", () => {
  // Covers L1 (capabilities by negotiated version), a session ID minted at initialize (visible ASCII; requests without one
  // are served statelessly), notifications 202, ping, -32601.
  it("initialize negotiates the version and declares tasks only where the version has them", async () => {
    const raw = legacyRaw(server.url, acmeToken, { version: null });
    const init = (v: string) =>
      raw.request("initialize", { protocolVersion: v, capabilities: {}, clientInfo: { name: "raw", version: "1" } });
    const modern = await init("2025-11-25");
    expect(modern.status).toBe(200);
    // 2025-11-25 transports "Session Management": only visible ASCII (0x21–0x7E), cryptographically random.
    expect(modern.headers.get("mcp-session-id")).toMatch(/^[\x21-\x7e]{32,}$/);
    expect(modern.body.result).toMatchObject({
      protocolVersion: "2025-11-25",
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      serverInfo: { name: "runifold" },
      instructions: expect.any(String),
    });
    const older = await init("2025-06-18");
    expect(older.body.result.protocolVersion).toBe("2025-06-18");
    expect(older.body.result.capabilities).toEqual({ tools: {} });
    expect((await init("1999-01-01")).body.result.protocolVersion).toBe("2025-11-25");

    const note = await raw.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(note.status).toBe(202);
    expect(note.body).toBeUndefined();
    const v = legacyRaw(server.url, acmeToken);
    expect((await v.request("ping")).body).toMatchObject({ result: {} });
    expect((await v.request("resources/list")).body.error.code).toBe(-32601);
    expect((await v.request("tools/list", {}, { version: "2024-01-01" })).status).toBe(400);
    expect((await v.post([{ jsonrpc: "2.0", id: 1, method: "ping" }])).status).toBe(400);
    expect((await v.post({ jsonrpc: "1.0", id: 1, method: "ping" })).status).toBe(400);
  });

  // Covers L2 (taskSupport values), L3 (required without task -32601), L4 (forbidden with task -32601), both before any run is written.
  it("answers task-mode mismatches with -32601 before anything runs", async () => {
    const raw = legacyRaw(server.url, confToken);
    const tools = (await raw.request("tools/list")).body.result.tools as { name: string; execution: unknown }[];
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution]));
    expect(support).toMatchObject({
      greet: { taskSupport: "forbidden" },
      slow_compute: { taskSupport: "optional" },
      failing_job: { taskSupport: "required" },
    });
    const before = await runCount();
    const required = await raw.request("tools/call", { name: "failing_job", arguments: {} });
    expect(required.status).toBe(200);
    expect(required.body.error.code).toBe(-32601);
    const forbidden = await raw.request("tools/call", { name: "greet", arguments: { name: "x" }, task: { ttl: 5_000 } });
    expect(forbidden.body.error.code).toBe(-32601);
    // Mode is checked before arguments: even invalid arguments get the mode error.
    expect((await raw.request("tools/call", { name: "greet", arguments: { name: 42 }, task: {} })).body.error.code).toBe(-32601);
    // Older protocol versions never reach a required tool either.
    expect(
      (await raw.request("tools/call", { name: "failing_job", arguments: {}, task: {} }, { version: "2025-06-18" })).body.error
        .code,
    ).toBe(-32601);
    // Invalid task parameters: -32602; invalid arguments of a task call are a tool input error
    // (server/tools.mdx "Error Handling", issue 15): isError, not -32602. Nothing written either way.
    expect((await raw.request("tools/call", { name: "slow_compute", arguments: {}, task: { ttl: -1 } })).body.error.code).toBe(
      -32602,
    );
    expect((await raw.request("tools/call", { name: "slow_compute", arguments: {}, task: "yes" })).body.error.code).toBe(-32602);
    expect(
      (await raw.request("tools/call", { name: "slow_compute", arguments: { seconds: "x" }, task: {} })).body.result.isError,
    ).toBe(true);
    expect(await runCount()).toBe(before);
  });

  // Covers L5 (no task capability at the client's version → params.task ignored, normal result), and the ordinary path.
  it("ignores params.task for clients on older protocol versions and answers a plain CallToolResult", async () => {
    const raw = legacyRaw(server.url, confToken);
    for (const version of ["2025-06-18", null]) {
      const response = await raw.request(
        "tools/call",
        { name: "slow_compute", arguments: { seconds: 0, label: "old" }, task: {} },
        { version },
      );
      expect(response.body.result.task).toBeUndefined();
      expect(response.body.result.content[0].text).toContain("Computed old");
    }
    const plain = await raw.request("tools/call", { name: "greet", arguments: { name: "Ada" } });
    expect(plain.body.result).toEqual({ content: [{ type: "text", text: "Hello, Ada!" }] });
    // A failed run on the ordinary path answers its stored JSON-RPC error.
    const failed = await raw.request("tools/call", { name: "protocol_error_job", arguments: {} });
    expect(failed.body.error).toMatchObject({ code: -32603, message: "Simulated protocol error" });
    // Past the route's deadline: the task handle (not an error), which keeps running and stays reachable.
    const conformance = await findTenantBySlug(sql, "conformance");
    await insertRouteRevision(sql, {
      tenantId: conformance?.id as string,
      toolName: "slow_deadline",
      workflowName: "conformance-slow-compute",
      workflowVersion: 1,
      inputSchema: { type: "object" },
      taskSupport: "optional",
      syncDeadlineMs: 300,
    });
    const late = await raw.request("tools/call", { name: "slow_deadline", arguments: { seconds: 30 } });
    expect(late.body.result).toMatchObject({ isError: false, structuredContent: { status: "working" } });
    const followUp = late.body.result.structuredContent.taskId;
    expect(late.body.result.content[0].text).toContain(followUp);
    expect((await raw.request("tasks/get", { taskId: followUp })).body.result.status).toBe("working");
    expect((await raw.request("tasks/cancel", { taskId: followUp })).body.result.status).toBe("cancelled");
  });

  // Covers L6, L7, L9 (flat get, unknown and expired → -32602), L10 (identical error replay), L12, L13 (isError → failed, result still a success).
  it("replays stored results and errors from tasks/result, with related-task meta only on success", async () => {
    const raw = legacyRaw(server.url, confToken);
    const failingId = await createTask(confToken, "failing_job", {});
    const errorId = await createTask(confToken, "protocol_error_job", {});
    const failing = await waitForStatus(confToken, failingId, ["completed", "failed"]);
    expect(failing).toMatchObject({ status: "failed", statusMessage: expect.stringContaining("simulated application error") });
    expect(failing.ttl).toEqual(expect.any(Number));
    expect(failing.pollInterval).toEqual(expect.any(Number));
    const failingResult = await raw.request("tasks/result", { taskId: failingId });
    expect(failingResult.body.error).toBeUndefined();
    expect(failingResult.body.result).toMatchObject({ isError: true, _meta: { [RELATED]: { taskId: failingId } } });

    expect((await waitForStatus(confToken, errorId, ["completed", "failed"])).status).toBe("failed");
    const stored = (await sql`SELECT payload FROM run_events WHERE run_id = ${errorId} AND type = 'failed'`)[0]?.payload;
    const replayed = await raw.request("tasks/result", { taskId: errorId });
    expect(replayed.status).toBe(200);
    expect(replayed.body.result).toBeUndefined();
    expect(replayed.body.error).toEqual(stored.error);
    expect(replayed.body.error.code).toBe(-32603);

    const unknown = await raw.request("tasks/get", { taskId: "00000000-0000-4000-8000-000000000001" });
    expect(unknown.body.error).toEqual({ code: -32602, message: "Failed to retrieve task: Task not found" });
    // ttl counts from creation: past it the handle is gone (get, result, cancel, list) whatever the status.
    const create = await raw.request("tools/call", { name: "slow_compute", arguments: { seconds: 60 }, task: { ttl: 1_000 } });
    expect(create.body.result.task.ttl).toBe(1_000);
    const expiring = create.body.result.task.taskId;
    await waitForHandleExpiry(sql, expiring);
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      expect((await raw.request(method, { taskId: expiring })).body.error).toEqual(unknown.body.error);
    }
    const listed = (await raw.request("tasks/list")).body.result.tasks.map((t: { taskId: string }) => t.taskId);
    expect(listed).not.toContain(expiring);
    expect(listed).toEqual(expect.arrayContaining([failingId, errorId]));
  });

  // Covers L11 (blocks until terminal, also for a JSON-only client) and L14 (allowed transitions only).
  it("blocks tasks/result until the task is terminal", async () => {
    const taskId = await createTask(confToken, "slow_compute", { seconds: 1, label: "block" });
    let answered = false;
    const pending = legacyRaw(server.url, confToken)
      .request("tasks/result", { taskId }, { accept: "application/json" })
      .finally(() => {
        answered = true;
      });
    // Blocking, as state: whenever the answer is in, the run was already terminal.
    const terminalWhenAnswered = await waitFor(
      async () => {
        const wasAnswered = answered;
        const status = await runStatus(sql, taskId);
        return { wasAnswered, status };
      },
      ({ wasAnswered }) => wasAnswered,
      { describe: `tasks/result for ${taskId} to answer` },
    );
    expect(["completed", "failed", "cancelled"]).toContain(terminalWhenAnswered.status);
    const response = await pending;
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.body.result).toMatchObject({ content: [{ text: "Computed block in 1s" }], _meta: { [RELATED]: { taskId } } });
  });

  // Covers L11, L14, L15 (status notifications without related-task meta; progress with it), L20 (original progressToken, nothing after terminal).
  it("streams status and progress with the original progressToken on tasks/result, then the result", async () => {
    const raw = legacyRaw(server.url, acmeToken);
    const created = await raw.request("tools/call", {
      name: "durable_report",
      arguments: { report_id: "prog", sections: 3, settle_ms: 600_000 },
      task: {},
      _meta: { progressToken: "tok-20" },
    });
    const taskId = created.body.result.task.taskId;
    expect((await sql`SELECT progress_token FROM runs WHERE id = ${taskId}`)[0]?.progress_token).toBe("tok-20");
    await waitForRunStatus(sql, taskId, "sleeping");
    const stream = await legacyStream(server.url, acmeToken, {
      jsonrpc: "2.0",
      id: 900,
      method: "tasks/result",
      params: { taskId },
    });
    expect(stream.response.headers.get("content-type")).toContain("text/event-stream");
    // The stream is subscribed once its headers are in; only then does the run finish its sleep.
    await wakeSleepingRun(sql, taskId);
    await stream.done;
    const final = stream.events.at(-1);
    expect(final).toMatchObject({
      id: 900,
      result: { structuredContent: { reportId: "prog" }, _meta: { [RELATED]: { taskId } } },
    });
    const progress = stream.events.filter((e) => e.method === "notifications/progress");
    expect(progress.length).toBeGreaterThanOrEqual(1);
    for (const p of progress)
      expect(p.params).toMatchObject({ progressToken: "tok-20", progress: expect.any(Number), _meta: { [RELATED]: { taskId } } });
    for (let i = 1; i < progress.length; i++)
      expect(progress[i].params.progress).toBeGreaterThan(progress[i - 1].params.progress);
    const statuses = stream.events.filter((e) => e.method === "notifications/tasks/status");
    for (const s of statuses) expect(s.params._meta?.[RELATED]).toBeUndefined();
    expect(statuses.at(-1)?.params.status).toBe("completed");
    expectTransitionsAllowed(statuses.map((s) => s.params.status));
    // Nothing follows the terminal answer; a later tasks/result is plain JSON with no progress.
    expect(stream.events.indexOf(final)).toBe(stream.events.length - 1);
    const again = await raw.request("tasks/result", { taskId });
    expect(again.headers.get("content-type")).toContain("application/json");
    expect(again.body.result._meta[RELATED]).toEqual({ taskId });
  });

  // Covers L15 (elicitations carry related-task meta; get/list/cancel results do not), durable input via a client response,
  // first answer wins, error responses count as cancel, foreign responses are ignored, L14 (input_required → working → terminal).
  it("streams input requests as elicitation/create and accepts the client's JSON-RPC responses", async () => {
    const raw = legacyRaw(server.url, confToken);
    const taskId = await createTask(confToken, "multi_input", {});
    const waiting = await waitForStatus(confToken, taskId, ["input_required"]);
    expect(waiting._meta).toBeUndefined();
    // Questions go only to a session that declared elicitation (2025-11-25 client/elicitation.mdx).
    const session = await legacySession(server.url, confToken, { elicitation: {} });
    const stream = await legacyStream(
      server.url,
      confToken,
      { jsonrpc: "2.0", id: "r1", method: "tasks/result", params: { taskId } },
      "2025-11-25",
      session,
    );
    const asks = [
      await stream.next((e) => e.method === "elicitation/create"),
      await stream.next((e) => e.method === "elicitation/create"),
    ];
    // Each names the task and the key, under this stream's tag (a fresh ID per stream: review3 D9).
    expect(asks.map((a) => a.id).sort()).toEqual([
      expect.stringMatching(new RegExp(`^rf-ask:${taskId}:[\\w-]+:confirm$`)),
      expect.stringMatching(new RegExp(`^rf-ask:${taskId}:[\\w-]+:name$`)),
    ]);
    for (const ask of asks) expect(ask.params._meta).toEqual({ [RELATED]: { taskId } });

    // Another tenant's key, or another key of this tenant, answering (same ID) is ignored exactly like an unknown ID: 202, no effect.
    for (const token of [acmeToken, sameTenantOtherKey]) {
      const foreign = await legacyRaw(server.url, token).post({
        jsonrpc: "2.0",
        id: `rf-input:${taskId}:name`,
        result: { action: "accept", content: { name: "Mallory" } },
      });
      expect(foreign.status).toBe(202);
    }
    expect((await legacyRaw(server.url, confToken).post({ jsonrpc: "2.0", id: "rf-input:nonsense", result: {} })).status).toBe(
      202,
    );
    // A client without elicitation support (-32601) leaves the question open.
    expect(
      (await raw.post({ jsonrpc: "2.0", id: `rf-input:${taskId}:confirm`, error: { code: -32601, message: "Method not found" } }))
        .status,
    ).toBe(202);
    expect((await raw.request("tasks/get", { taskId })).body.result.status).toBe("input_required");

    const answered = await raw.post({
      jsonrpc: "2.0",
      id: `rf-input:${taskId}:name`,
      result: { action: "accept", content: { name: "Luca" }, _meta: { [RELATED]: { taskId } } },
    });
    expect(answered.status).toBe(202);
    expect(answered.body).toBeUndefined();
    // A late duplicate for the same key is ignored (first answer wins), not an error.
    expect(
      (await raw.post({ jsonrpc: "2.0", id: `rf-input:${taskId}:name`, result: { action: "accept", content: { name: "Late" } } }))
        .status,
    ).toBe(202);
    expect((await raw.request("tasks/get", { taskId })).body.result.status).toBe("input_required");
    // An error response to the other question counts as the user cancelling it.
    expect(
      (
        await raw.post({
          jsonrpc: "2.0",
          id: `rf-input:${taskId}:confirm`,
          error: { code: -1, message: "User closed the dialog" },
        })
      ).status,
    ).toBe(202);
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({ id: "r1", result: { content: [{ text: "Name: Luca; confirmed: false" }] } });
    const statuses = stream.events.filter((e) => e.method === "notifications/tasks/status").map((e) => e.params.status);
    expect(statuses[0]).toBe("input_required");
    expect(statuses.at(-1)).toBe("completed");
    expectTransitionsAllowed(statuses);
    const list = (await raw.request("tasks/list")).body.result;
    expect(list._meta).toBeUndefined();
    expect(list.tasks.find((t: { taskId: string }) => t.taskId === taskId)).toMatchObject({ status: "completed" });
  });
});
