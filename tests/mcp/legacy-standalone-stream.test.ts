import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { answerPendingInput } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw, legacySession, legacyStream } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { waitForRunStatus } from "../helpers/runs";
import { readSse, type SseEvent, type SseReader } from "../helpers/sse";
import { holdsFor } from "../helpers/wait-for";

/**
 * The legacy session's standalone GET stream (2025-11-25 basic/transports.mdx "Listening for
 * Messages from the Server"; lib/mcp/legacy/standalone-stream.ts) with a raw SSE client: who gets a
 * stream, which questions travel on it (tasks of this session, once, with the related-task `_meta`,
 * tasks.mdx "Associating Task-Related Messages"), how answers come back through another instance,
 * and what is not sent. Covers L15 on the GET stream.
 */
const RELATED = "io.modelcontextprotocol/related-task";
const ELICIT = { elicitation: { form: {} } };

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let a: Awaited<ReturnType<typeof startMcpTestServer>>;
let b: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let otherKey: string;
let conformanceKey: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  const acme = await findTenantBySlug(sql, "tenant-acme");
  otherKey = (await createApiKey(sql, { tenantId: acme?.id as string, name: "other" })).token;
  const conformance = await findTenantBySlug(sql, "conformance");
  conformanceKey = (await createApiKey(sql, { tenantId: conformance?.id as string, name: "multi" })).token;
  a = await startMcpTestServer(sql);
  // A second web instance on the same store, without a worker: answers may land anywhere.
  b = await startMcpTestServer(sql, { worker: false, standaloneMaxLifetimeMs: 1_500 });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

const open: AbortController[] = [];
afterAll(() => {
  for (const controller of open) controller.abort();
});

function get(url: string, bearer: string, headers: Record<string, string> = {}): Promise<Response> {
  const controller = new AbortController();
  open.push(controller);
  return fetch(url, {
    method: "GET",
    signal: controller.signal,
    headers: { authorization: `Bearer ${bearer}`, accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", ...headers },
  });
}

async function listen(session: Record<string, string>, bearer = token, url = a.url): Promise<SseReader & { stop(): void }> {
  const response = await get(url, bearer, session);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const controller = open.at(-1) as AbortController;
  const reader = readSse(response);
  // Our own abort ends the body with an AbortError; a test that cares awaits `done` itself.
  reader.done.catch(() => {});
  return Object.assign(reader, { stop: () => controller.abort() });
}

async function createTask(session: Record<string, string>, name: string, args: Record<string, unknown>, bearer = token) {
  const created = await legacyRaw(a.url, bearer).request("tools/call", { name, arguments: args, task: {} }, { headers: session });
  expect(created.status).toBe(200);
  return created.body.result.task.taskId as string;
}

const elicitations = (events: SseEvent[]) => events.filter((event) => event.method === "elicitation/create");
/** The server's ID for a question: `rf-ask:<task>:<stream tag>:<key>` (a fresh ID per stream, review3 D9). */
const questionId = (taskId: string, key: string) => new RegExp(`^rf-ask:${taskId}:[\\w-]+:${key}$`);
const isQuestion = (taskId: string, key: string) => (event: SseEvent) => questionId(taskId, key).test(String(event.id));

describe("legacy standalone GET stream", () => {
  it("answers 405 without a session or for the modern era, 401 without credentials, 404 for an unknown or another key's session", async () => {
    const none = await get(a.url, token);
    expect(none.status).toBe(405);
    expect(none.headers.get("allow")).toBe("POST");
    const mine = await legacySession(a.url, token, ELICIT);
    expect((await get(a.url, token, { ...mine, "mcp-protocol-version": "2026-07-28" })).status).toBe(405);
    const anonymous = await fetch(a.url, { headers: { accept: "text/event-stream", ...mine } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("Bearer");
    expect((await get(a.url, token, { ...mine, "mcp-protocol-version": "1999-01-01" })).status).toBe(400);
    expect((await get(a.url, token, { ...mine, accept: "application/json" })).status).toBe(406);

    const unknown = await get(a.url, token, { "mcp-session-id": "unknown-session-id-0123456789abcdef" });
    const foreign = await get(a.url, otherKey, mine);
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await unknown.json());
  });

  it("delivers a task's question once with related-task meta; a re-opened stream asks again; the answer via another instance completes it", async () => {
    const session = await legacySession(a.url, token, ELICIT);
    const stream = await listen(session);
    const taskId = await createTask(session, "approve_expense", { expense_id: "GET-1", amount: 30 });
    const question = await stream.next(isQuestion(taskId, "decision"));
    expect(question).toMatchObject({
      jsonrpc: "2.0",
      method: "elicitation/create",
      params: { mode: "form", requestedSchema: { properties: { decision: { enum: ["approve", "reject"] } } } },
    });
    expect(question.params._meta).toEqual({ [RELATED]: { taskId } });

    // The client lost the stream before answering: the next one re-sends the open question, same ID.
    stream.stop();
    const again = await listen(session);
    expect((await again.next(isQuestion(taskId, "decision"))).params).toEqual(question.params);

    const answer = { jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { decision: "approve" } } };
    expect((await legacyRaw(b.url, token).post(answer, { headers: session })).status).toBe(202);
    await waitForRunStatus(sql, taskId, "completed");
    const [row] = await sql`SELECT answered_by FROM run_inputs WHERE run_id = ${taskId}`;
    expect(row?.answered_by).toMatch(/^key:[0-9a-f]{16}$/);
    // Once per stream, and nothing withdrawn: this credential answered it itself.
    await holdsFor(
      () => again.events.filter((event) => event.method === "notifications/cancelled").length,
      (count) => count === 0,
      { describe: "no withdrawal of the client's own answer", forMs: 2_500 },
    );
    expect(elicitations(again.events)).toHaveLength(1);
  });

  it("sends each question on one stream only: a tasks/result stream keeps its own, and does not repeat the GET stream's", async () => {
    const session = await legacySession(a.url, token, ELICIT);
    const stream = await listen(session);
    const first = await createTask(session, "approve_expense", { expense_id: "GET-4", amount: 8 });
    const result = await legacyStream(
      a.url,
      token,
      { jsonrpc: "2.0", id: "r-1", method: "tasks/result", params: { taskId: first } },
      "2025-11-25",
      session,
    );
    await result.next(isQuestion(first, "decision"));
    await holdsFor(
      () => stream.events.filter(isQuestion(first, "decision")).length,
      (count) => count === 0,
      { describe: "the GET stream not to repeat what tasks/result carries", forMs: 3_000 },
    );

    const second = await createTask(session, "approve_expense", { expense_id: "GET-5", amount: 9 });
    await stream.next(isQuestion(second, "decision"));
    const later = await legacyStream(
      a.url,
      token,
      { jsonrpc: "2.0", id: "r-2", method: "tasks/result", params: { taskId: second } },
      "2025-11-25",
      session,
    );
    await later.next((event) => event.method === "notifications/tasks/status");
    await holdsFor(
      () => later.events.filter(isQuestion(second, "decision")).length,
      (count) => count === 0,
      { describe: "tasks/result not to repeat what the GET stream carries", forMs: 2_500 },
    );
    for (const [taskId, id] of [
      [first, "r-1"],
      [second, "r-2"],
    ] as const) {
      const answer = {
        jsonrpc: "2.0",
        id: `rf-input:${taskId}:decision`,
        result: { action: "accept", content: { decision: "approve" } },
      };
      await legacyRaw(b.url, token).post(answer, { headers: session });
      expect((await (id === "r-1" ? result : later).next((event) => event.id === id)).result).toMatchObject({
        structuredContent: { decision: "approved" },
      });
    }
  });

  it("sends nothing to a session without elicitation, and only this session's tasks to one with it", async () => {
    const plain = await legacySession(a.url, token, {});
    const plainStream = await listen(plain);
    const asking = await legacySession(a.url, token, ELICIT);
    const askingStream = await listen(asking);
    const plainTask = await createTask(plain, "approve_expense", { expense_id: "GET-2", amount: 5 });
    await waitForRunStatus(sql, plainTask, "waiting_input");
    const ownTask = await createTask(asking, "approve_expense", { expense_id: "GET-3", amount: 6 });
    // Marker: the asking stream got its own task's question, which appeared after the other one.
    await askingStream.next(isQuestion(ownTask, "decision"));
    expect(elicitations(askingStream.events).map((event) => event.id)).toEqual([
      expect.stringMatching(questionId(ownTask, "decision")),
    ]);
    await holdsFor(
      () => elicitations(plainStream.events).length,
      (count) => count === 0,
      { describe: "no elicitation/create on a stream of a session without elicitation", forMs: 2_500 },
    );
    // The questions stay open for other channels.
    expect(await waitForRunStatus(sql, plainTask, "waiting_input")).toBe("waiting_input");
  });

  it("does not send a question answered in the console first, and withdraws one answered there after it was sent", async () => {
    const session = await legacySession(a.url, conformanceKey, ELICIT);
    const tenantId = (await findTenantBySlug(sql, "conformance"))?.id as string;
    const early = await createTask(session, "multi_input", {}, conformanceKey);
    await waitForRunStatus(sql, early, "waiting_input");
    const operator = { tenantId, actor: "operator:test" };
    expect(
      await answerPendingInput(sql, {
        ...operator,
        taskId: early,
        key: "name",
        response: { action: "accept", content: { name: "Ada" } },
      }),
    ).toMatchObject({ answered: true });

    const stream = await listen(session, conformanceKey);
    // Both keys would go out in the same round: once `confirm` is here, `name` would have been too.
    await stream.next(isQuestion(early, "confirm"));
    expect(stream.events.some(isQuestion(early, "name"))).toBe(false);

    const late = await createTask(session, "multi_input", {}, conformanceKey);
    await stream.next(isQuestion(late, "name"));
    await answerPendingInput(sql, {
      ...operator,
      taskId: late,
      key: "name",
      response: { action: "accept", content: { name: "Bo" } },
    });
    const withdrawn = await stream.next((event) => event.method === "notifications/cancelled");
    expect(withdrawn.params).toMatchObject({
      requestId: expect.stringMatching(questionId(late, "name")),
      _meta: { [RELATED]: { taskId: late } },
    });
    expect(elicitations(stream.events).filter(isQuestion(late, "name"))).toHaveLength(1);
  });

  it("keeps one stream per session: a second GET retires the first; a stream ends with a retry hint at its lifetime", async () => {
    const session = await legacySession(a.url, token, ELICIT);
    const first = await listen(session);
    // On another instance: the first stream learns from the store that its slot is gone.
    const second = await listen(session, token, b.url);
    await first.done;
    expect(first.events).toEqual([]);
    // The survivor is the newer one, until its (test-shortened) lifetime ends it with `retry`.
    const raw = await get(b.url, token, session);
    await second.done;
    const text = await raw.text();
    expect(text).toContain("retry: 1000");
  });
});
