import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerPendingInput } from "../../lib/tasks";
import { connectLegacyClient, legacyRaw, legacySession } from "../helpers/legacy-client";
import { readSse } from "../helpers/sse";
import { startTwoWebStack, type TwoWebStack } from "../helpers/two-web-stack";
import { holdsFor } from "../helpers/wait-for";

/** An elicitation/create ID the server sent for this run's key (`rf-ask:<run>:<stream tag>:<key>`). */
function askedFor(runId: string, key: string, id: unknown): boolean {
  return typeof id === "string" && new RegExp(`^rf-ask:${runId}:[\\w-]+:${key}$`).test(id);
}

/**
 * Human input on the ordinary path, legacy era: a tools/call WITHOUT task augmentation from a
 * client whose session declared elicitation is answered as an SSE stream carrying the run's
 * questions as elicitation/create; the answer (a JSON-RPC response POST, to any instance) goes
 * through provideInput and the final result follows on the same stream. Web servers and the worker
 * each have their own pool, as separate processes would.
 */
const FAST_DEADLINE_MS = 500;
let stack: TwoWebStack;
let db: TwoWebStack["db"];
let token: string;
let tenantId: string;
let a: TwoWebStack["a"];
let b: TwoWebStack["b"];

beforeAll(async () => {
  stack = await startTwoWebStack({ fastDeadlineMs: FAST_DEADLINE_MS });
  ({ db, token, tenantId, a, b } = stack);
});
afterAll(async () => {
  await stack?.close();
});

const actor = () => stack.actor;

async function runOf(expenseId: string) {
  const rows = await db.sql<{ id: string; origin: string; status: string }[]>`
    SELECT id, origin, status FROM runs WHERE input->>'expense_id' = ${expenseId}`;
  expect(rows).toHaveLength(1);
  return rows[0] as { id: string; origin: string; status: string };
}

async function answeredBy(runId: string) {
  return (await db.sql`SELECT answered_by, response FROM run_inputs WHERE run_id = ${runId}`)[0];
}

/** A plain tools/call (no params.task) in `session`, read as it streams; `signal` ends it from the client side. */
async function ordinaryCall(session: Record<string, string>, name: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const response = await fetch(a.url, {
    method: "POST",
    signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2025-11-25",
      ...session,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: "call-1", method: "tools/call", params: { name, arguments: args } }),
  });
  return readSse(response);
}

describe("legacy ordinary path with inline elicitation", () => {
  it("the SDK v1 client calling approve_expense without tasks is asked inline and gets the result; the key is the actor", async () => {
    const asked: unknown[] = [];
    const { client, log, close } = await connectLegacyClient(a.url, token, {
      onElicit: (request) => {
        asked.push(request.params);
        return { action: "accept", content: { decision: "approve", comment: "fine" } };
      },
    });
    try {
      const result = await client.callTool({ name: "approve_expense", arguments: { expense_id: "IN-1", amount: 12 } });
      expect(result).toMatchObject({ structuredContent: { expenseId: "IN-1", decision: "approved", comment: "fine" } });
      expect(result.isError).toBeUndefined();
      expect(asked).toEqual([
        expect.objectContaining({ mode: "form", message: expect.stringContaining("IN-1"), requestedSchema: expect.any(Object) }),
      ]);
      const run = await runOf("IN-1");
      expect(run).toMatchObject({ origin: "ordinary", status: "completed" });
      expect(await answeredBy(run.id)).toMatchObject({ answered_by: actor(), response: { action: "accept" } });
      // The question's JSON-RPC ID names the run and the input key (any instance can route the answer).
      const answer = log.find((entry) => askedFor(run.id, "decision", (entry.message as { id?: unknown })?.id));
      expect(answer?.message).toMatchObject({ result: { action: "accept", content: { decision: "approve" } } });
    } finally {
      await close();
    }
  });

  it("completes when the client's answer is POSTed to another web instance", async () => {
    const sent: { target: string; body: Record<string, unknown> }[] = [];
    // Requests go to A; POSTs of JSON-RPC responses (the answers) go to B, as a load balancer might send them.
    const transport = new StreamableHTTPClientTransport(new URL(a.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (input, init) => {
        const body = typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : {};
        const isResponse = !("method" in body) && ("result" in body || "error" in body);
        const target = isResponse ? b.url : a.url;
        sent.push({ target, body });
        return fetch(new URL(new URL(input.toString()).pathname, target), init);
      },
    });
    const client = new Client({ name: "two-instances", version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { decision: "reject" } }));
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "approve_expense", arguments: { expense_id: "IN-2", amount: 7 } });
      expect(result).toMatchObject({ isError: true, structuredContent: { decision: "rejected" } });
      const run = await runOf("IN-2");
      const answers = sent.filter((entry) => askedFor(run.id, "decision", entry.body.id));
      expect(answers.map((entry) => entry.target)).toEqual([b.url]);
      expect(sent.find((entry) => entry.body.method === "tools/call")?.target).toBe(a.url);
      expect(await answeredBy(run.id)).toMatchObject({ answered_by: actor() });
    } finally {
      await client.close();
    }
  });

  it("a client that declared no elicitation gets no elicitation/create: the task handle, and the task stays answerable", async () => {
    const { client, log, close } = await connectLegacyClient(a.url, token);
    try {
      const result = await client.callTool({ name: "approve_fast", arguments: { expense_id: "IN-3", amount: 3 } });
      expect(result).toMatchObject({ isError: false, structuredContent: { status: "input_required" } });
      const run = await runOf("IN-3");
      expect((result.content as { text: string }[])[0]?.text).toContain(run.id);
      // Nothing was asked, so the client sent no answer (the SDK answers any request it gets).
      expect(log.filter((entry) => String((entry.message as { id?: unknown })?.id).startsWith("rf-ask:"))).toEqual([]);
      expect(run.status).toBe("waiting_input");
    } finally {
      await close();
    }
    // Raw, too: the answer is plain JSON, not a stream that could carry a request.
    const session = await legacySession(a.url, token, { roots: {} });
    const raw = await legacyRaw(a.url, token).request(
      "tools/call",
      { name: "approve_fast", arguments: { expense_id: "IN-3b", amount: 3 } },
      { headers: session },
    );
    expect(raw.headers.get("content-type")).toContain("application/json");
    expect(raw.body.result).toMatchObject({ isError: false, structuredContent: { status: "input_required" } });
    const run = await runOf("IN-3b");
    const operator = await answerPendingInput(db.sql, {
      taskId: run.id,
      tenantId,
      key: "decision",
      response: { action: "accept", content: { decision: "approve" } },
      actor: "operator:test",
    });
    expect(operator.answered).toBe(true);
  });

  it("the operator's form can answer first: the stream just continues to the result", async () => {
    const stream = await ordinaryCall(await legacySession(a.url, token, { elicitation: {} }), "approve_expense", {
      expense_id: "IN-4",
      amount: 4,
    });
    expect(stream.response.headers.get("content-type")).toContain("text/event-stream");
    const ask = await stream.next((event) => event.method === "elicitation/create");
    const run = await runOf("IN-4");
    expect(askedFor(run.id, "decision", ask.id)).toBe(true);
    // Not a task: no related-task metadata on the question.
    expect(ask.params._meta).toBeUndefined();
    await answerPendingInput(db.sql, {
      taskId: run.id,
      tenantId,
      key: "decision",
      response: { action: "accept", content: { decision: "approve", comment: "by ops" } },
      actor: "operator:test",
    });
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({ id: "call-1", result: { structuredContent: { decision: "approved" } } });
    expect(await answeredBy(run.id)).toMatchObject({ answered_by: "operator:test" });
  });

  it("an outstanding question holds the call open past the sync deadline; a decline is the workflow's rejection", async () => {
    const session = await legacySession(a.url, token, { elicitation: { form: {} } });
    const stream = await ordinaryCall(session, "approve_fast", { expense_id: "IN-5", amount: 5 });
    const ask = await stream.next((event) => event.method === "elicitation/create");
    let ended = false;
    void stream.done.then(() => {
      ended = true;
    });
    // Three times the route's 500 ms deadline: the clock does not run while a person is asked.
    await holdsFor(
      () => ended,
      (value) => !value,
      { describe: "the call to stay open while its question is outstanding", forMs: 3 * FAST_DEADLINE_MS },
    );
    const answered = await legacyRaw(b.url, token).post(
      { jsonrpc: "2.0", id: ask.id, result: { action: "decline" } },
      { headers: session },
    );
    expect(answered.status).toBe(202);
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({
      id: "call-1",
      result: { isError: true, structuredContent: { decision: "rejected" } },
    });
    const run = await runOf("IN-5");
    expect(await answeredBy(run.id)).toMatchObject({ answered_by: actor(), response: { action: "decline" } });
  });

  it("a client that disconnects from the call does not cancel the run (2025-11-25 transports)", async () => {
    const controller = new AbortController();
    const stream = await ordinaryCall(
      await legacySession(a.url, token, { elicitation: {} }),
      "approve_expense",
      { expense_id: "IN-6", amount: 6 },
      controller.signal,
    );
    await stream.next((event) => event.method === "elicitation/create");
    controller.abort();
    await stream.done.catch(() => {});
    const run = await runOf("IN-6");
    await holdsFor(
      async () => (await runOf("IN-6")).status,
      (status) => status === "waiting_input",
      { describe: "the run to keep waiting for its answer", forMs: 1_000 },
    );
    const answered = await answerPendingInput(db.sql, {
      taskId: run.id,
      tenantId,
      key: "decision",
      response: { action: "accept", content: { decision: "approve" } },
      actor: "operator:test",
    });
    expect(answered).toMatchObject({ answered: true, resumed: true });
  });
});
