import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { createCredentialLimits } from "../../lib/mcp";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw, legacySession, legacyStream } from "../helpers/legacy-client";
import { legacyRequest, modernRequest, TASKS_ONLY } from "../helpers/mcp-envelope";
import { type McpTestServer, startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { readSse, type SseReader } from "../helpers/sse";
import { waitFor } from "../helpers/wait-for";

/**
 * The per-credential budgets of security review M4 (lib/mcp/credential-limits.ts), over real HTTP
 * and Postgres, at 2 streams, 2 waits and 3 creations a minute (on a clock the test moves). No
 * worker runs, so every task stays live and every wait stays blocked until the test ends it.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: McpTestServer;
let tenantId: string;
let clock = Date.now();
const limits = createCredentialLimits({
  maxStreamsPerKey: 2,
  maxWaitsPerKey: 2,
  maxTaskCreatesPerMinutePerKey: 3,
  now: () => clock,
});
/** Requests the tests hold open; all aborted at the end. */
const held: AbortController[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await seedDemo(sql);
  tenantId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  server = await startMcpTestServer(sql, { worker: false, limits });
});
afterAll(async () => {
  for (const controller of held) controller.abort();
  await server.close();
  await db.drop();
});

const call = { name: "durable_report", arguments: { report_id: "caps", settle_ms: 600_000 } };
const newKey = async (name: string) => createApiKey(sql, { tenantId, name });
/** A live task of `token`'s key (created with a fresh bucket, so creation limits stay out of the way). */
async function liveTask(token: string): Promise<string> {
  clock += 60_000;
  return (await modernClient(server.url, { token }).result("tools/call", call)).taskId;
}

function expectRefused(response: { status: number; headers: Headers; body: unknown }, what: RegExp) {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(response.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32600, message: expect.stringMatching(what) } });
}

describe("open streams per credential", () => {
  it("refuses the third listen stream with 429, not another key's, and frees the slot when a client disconnects", async () => {
    const key = await newKey("streams-modern");
    const taskId = await liveTask(key.token);
    const first = await listen(key.token, taskId);
    const second = await listen(key.token, taskId);
    await first.reader.next((e) => e.method === "notifications/tasks");
    await second.reader.next((e) => e.method === "notifications/tasks");

    const refused = await modernClient(server.url, { token: key.token }).request("subscriptions/listen", {
      notifications: { taskIds: [taskId] },
    });
    expectRefused(refused, /Too many open streams.*at most 2/);

    const other = await newKey("streams-modern-other");
    const theirs = await listen(other.token, await liveTask(other.token));
    await theirs.reader.next((e) => e.method === "notifications/tasks");

    // The client goes away: the server sees the socket close and gives the slot back.
    first.abort.abort();
    const third = await waitFor(
      async () => {
        const attempt = await listen(key.token, taskId);
        if (attempt.reader.response.status !== 200) attempt.abort.abort();
        return attempt;
      },
      (attempt) => attempt.reader.response.status === 200,
      { describe: "a listen stream to be accepted again after one closed", everyMs: 100 },
    );
    await third.reader.next((e) => e.method === "notifications/tasks");
  });

  it("counts the legacy GET stream and streamed tasks/result in the same budget, freed when the task ends", async () => {
    const key = await newKey("streams-legacy");
    const session = await legacySession(server.url, key.token, { elicitation: {} });
    const get = await standaloneGet(key.token, session);
    expect(get.response.status).toBe(200);
    const raw = legacyRaw(server.url, key.token);
    const created = await raw.request("tools/call", { ...call, task: {} });
    const taskId = created.body.result.task.taskId as string;
    const result = await legacyStream(server.url, key.token, {
      jsonrpc: "2.0",
      id: 1,
      method: "tasks/result",
      params: { taskId },
    });
    await result.next((e) => e.method === "notifications/tasks/status");

    const refused = await raw.request("tasks/result", { taskId });
    expectRefused(refused, /Too many open streams/);
    const refusedGet = await standaloneGet(key.token, session);
    expect(refusedGet.response.status).toBe(429);
    expect(refusedGet.response.headers.get("retry-after")).toBe("5");

    // Completion ends the tasks/result stream, and its slot is free again.
    expect((await raw.request("tasks/cancel", { taskId })).body.error).toBeUndefined();
    await result.done;
    const next = await raw.request("tools/call", { ...call, task: {} });
    const streamed = await legacyStream(server.url, key.token, {
      jsonrpc: "2.0",
      id: 2,
      method: "tasks/result",
      params: { taskId: next.body.result.task.taskId },
    });
    streamed.done.catch(() => {}); // cut when the server closes at the end
    await streamed.next((e) => e.method === "notifications/tasks/status");
    expect(streamed.response.status).toBe(200);
  });
});

describe("blocking waits per credential", () => {
  it("refuses the third JSON wait with 429 before any run starts, not another key's, and frees slots on abort and on error", async () => {
    const key = await newKey("waits");
    const taskId = await liveTask(key.token);
    const jsonOnly = legacyRaw(server.url, key.token, { accept: "application/json" });
    const first = heldPost(key.token, "tasks/result", { taskId });
    const second = heldPost(key.token, "tasks/result", { taskId });
    await waitFor(
      () => limits.waits.inUse(key.keyId),
      (n) => n === 2,
      { describe: "two tasks/result waits to be held" },
    );

    expectRefused(await jsonOnly.request("tasks/result", { taskId }), /Too many blocking waits.*at most 2/);
    // An ordinary tools/call also waits (modern, without the tasks extension): refused before its run exists.
    const runsBefore = await runsOfKey(key.keyId);
    const ordinary = await modernClient(server.url, { token: key.token, capabilities: {} }).request("tools/call", call);
    expectRefused(ordinary, /Too many blocking waits/);
    expect(await runsOfKey(key.keyId)).toBe(runsBefore);

    const other = await newKey("waits-other");
    const theirs = heldPost(other.token, "tasks/result", { taskId: await liveTask(other.token) });
    await waitFor(
      () => limits.waits.inUse(other.keyId),
      (n) => n === 1,
      { describe: "the other key's wait to be held" },
    );

    // A client that goes away gives its slot back.
    first.abort();
    await waitFor(
      () => limits.waits.inUse(key.keyId),
      (n) => n === 1,
      { describe: "the aborted wait's slot to be freed" },
    );
    // A wait that ends in an error (the handle expired meanwhile) gives it back too.
    await sql`UPDATE runs SET ttl_ms = 1, updated_at = now() WHERE id = ${taskId}`;
    const failed = await second.response;
    expect(failed.error).toMatchObject({ code: -32602 });
    await waitFor(
      () => limits.waits.inUse(key.keyId),
      (n) => n === 0,
      { describe: "the failed wait's slot to be freed" },
    );
    theirs.abort();
  });
});

describe("task creation rate per credential", () => {
  it("refuses past the rate with a tool error naming the wait, in both eras, then recovers", async () => {
    const key = await newKey("rate");
    clock += 60_000;
    const modern = modernClient(server.url, { token: key.token });
    for (let n = 0; n < 3; n++) expect((await modern.result("tools/call", call)).taskId).toEqual(expect.any(String));
    const refused = await modern.request("tools/call", call);
    expect(refused.status).toBe(200);
    expect(refused.body.result).toMatchObject({ resultType: "complete", isError: true });
    expect(refused.body.result.content[0].text).toMatch(/Too many tasks created.*3 tasks a minute.*Retry in 20s/);
    const legacy = await legacyRaw(server.url, key.token).request("tools/call", { ...call, task: {} });
    expect(legacy.body.result.isError).toBe(true);
    expect(await runsOfKey(key.keyId)).toBe(3);
    // Another key has its own bucket.
    const other = await newKey("rate-other");
    expect((await modernClient(server.url, { token: other.token }).result("tools/call", call)).taskId).toEqual(
      expect.any(String),
    );
    // One token comes back every 20 s (3 a minute).
    clock += 20_000;
    expect((await modern.result("tools/call", call)).taskId).toEqual(expect.any(String));
    expect((await modern.request("tools/call", call)).body.result.isError).toBe(true);
  });
});

const runsOfKey = async (keyId: string) =>
  Number((await sql`SELECT count(*) AS n FROM runs WHERE created_by_key_id = ${keyId}`)[0]?.n);

/** A modern subscriptions/listen the test can close (the helpers' streams cannot be aborted). */
async function listen(token: string, taskId: string): Promise<{ reader: SseReader; abort: AbortController }> {
  const abort = new AbortController();
  held.push(abort);
  const response = await fetch(server.url, {
    ...modernRequest(
      "subscriptions/listen",
      { notifications: { taskIds: [taskId] } },
      { token, id: 1, clientInfo: { name: "caps", version: "1" }, capabilities: TASKS_ONLY },
    ),
    signal: abort.signal,
  });
  const reader = readSse(response);
  reader.done.catch(() => {});
  return { reader, abort };
}

async function standaloneGet(token: string, session: Record<string, string>): Promise<SseReader> {
  const abort = new AbortController();
  held.push(abort);
  const response = await fetch(server.url, {
    method: "GET",
    signal: abort.signal,
    headers: { accept: "text/event-stream", authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-11-25", ...session },
  });
  const reader = readSse(response);
  reader.done.catch(() => {});
  return reader;
}

/** A legacy JSON-only request left waiting; `abort()` drops the connection. */
function heldPost(token: string, method: string, params: Record<string, unknown>) {
  const abort = new AbortController();
  held.push(abort);
  const response = fetch(server.url, {
    ...legacyRequest(method, params, { token, id: 1, accept: "application/json" }),
    signal: abort.signal,
  }).then(
    // biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC body of any shape
    async (r) => (await r.json()) as any,
    () => undefined,
  );
  return { response, abort: () => abort.abort() };
}
