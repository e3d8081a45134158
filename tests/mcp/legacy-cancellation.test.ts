import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED_ACTOR, setTenantHandleTools } from "../../lib/admin";
import { answerPendingInput, cancelTaskInScope } from "../../lib/tasks";
import { connectLegacyClient, legacyRaw, legacySession } from "../helpers/legacy-client";
import { waitForRunStatus } from "../helpers/runs";
import { readSse } from "../helpers/sse";
import { startTwoWebStack, type TwoWebStack } from "../helpers/two-web-stack";
import { waitForValue } from "../helpers/wait-for";

/**
 * 2025-11-25 basic/utilities/cancellation.mdx on the ordinary (non-task) legacy path: a client's
 * `notifications/cancelled {requestId}` — POSTed to any instance — cancels the run of that call
 * (it exists only for the call) with the client's credential as actor, and the call's stream ends
 * without a response. And withdrawal: a question the call's stream sent that became obsolete is
 * withdrawn there with `notifications/cancelled`. Two web instances and a worker, each with a pool.
 */
let stack: TwoWebStack;
let db: TwoWebStack["db"];
let token: string;
let tenantId: string;
let a: TwoWebStack["a"];
let b: TwoWebStack["b"];

beforeAll(async () => {
  stack = await startTwoWebStack({ fastDeadlineMs: 300 });
  ({ db, token, tenantId, a, b } = stack);
  // Handles off: a call that cannot be asked its question keeps waiting (as it did before handles),
  // so there is a live JSON call to cancel. With handles on it would answer its handle at once.
  await setTenantHandleTools({ sql: db.sql, actor: SEED_ACTOR }, { tenantId, on: false });
});
afterAll(async () => {
  await stack?.close();
});

const actor = () => stack.actor;

/** The run an ordinary call created for this expense, once it waits for its question. */
function waitingRun(expenseId: string) {
  return waitForValue(
    async () =>
      (
        await db.sql<{ id: string; status: string }[]>`
          SELECT id, status FROM runs WHERE input->>'expense_id' = ${expenseId} AND status = 'waiting_input'`
      )[0],
    { describe: `the run of ${expenseId} to wait for input` },
  );
}

async function status(runId: string) {
  return (await db.sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ${runId}`)[0]?.status;
}

async function cancelEvent(runId: string) {
  return (await db.sql`SELECT payload FROM run_events WHERE run_id = ${runId} AND type = 'cancelled'`)[0]?.payload;
}

function cancelled(requestId: string | number) {
  return { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "User pressed Stop" } };
}

/** A plain tools/call (no params.task) on instance A, read as it streams. */
async function ordinaryCall(session: Record<string, string>, id: string, args: Record<string, unknown>) {
  const response = await fetch(a.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2025-11-25",
      ...session,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "approve_expense", arguments: args } }),
  });
  return readSse(response);
}

describe("legacy notifications/cancelled for an ordinary tools/call", () => {
  it("SDK v1: aborting callTool (JSON wait) sends notifications/cancelled and the run is cancelled by the key", async () => {
    const { client, log, close } = await connectLegacyClient(a.url, token);
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: "approve_expense", arguments: { expense_id: "CX-1", amount: 1 } }, undefined, {
        signal: controller.signal,
      });
      const run = await waitingRun("CX-1");
      controller.abort("stop");
      await expect(call).rejects.toThrow();
      await waitForRunStatus(db.sql, run.id, "cancelled");
      expect(await cancelEvent(run.id)).toMatchObject({ actor: actor() });
      expect(log.some((entry) => (entry.message as { method?: string })?.method === "notifications/cancelled")).toBe(true);
    } finally {
      await close();
    }
  });

  it("SDK v1 with elicitation across two instances: aborting while asked cancels the run", async () => {
    // Round-robin over both instances: the call, the question's stream and the cancellation land anywhere.
    const { client, close } = await connectLegacyClient([a.url, b.url], token, {
      onElicit: () => new Promise(() => {}),
    });
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: "approve_expense", arguments: { expense_id: "CX-2", amount: 2 } }, undefined, {
        signal: controller.signal,
      });
      const run = await waitingRun("CX-2");
      controller.abort("stop");
      await expect(call).rejects.toThrow();
      await waitForRunStatus(db.sql, run.id, "cancelled");
      expect(await cancelEvent(run.id)).toMatchObject({ actor: actor() });
    } finally {
      await close();
    }
  });

  it("raw: the cancellation POSTed to another instance in the call's session ends its stream without a response", async () => {
    const session = await legacySession(a.url, token, { elicitation: {} });
    const other = await legacySession(a.url, token, { elicitation: {} });
    const stream = await ordinaryCall(session, "call-9", { expense_id: "CX-3", amount: 3 });
    const ask = await stream.next((event) => event.method === "elicitation/create");
    const run = await waitingRun("CX-3");
    // Request IDs are per session: another session's, or a sessionless, "call-9" is not this call.
    const raw = legacyRaw(b.url, token);
    expect((await raw.post(cancelled("call-9"), { headers: other })).status).toBe(202);
    expect((await raw.post(cancelled("call-9"))).status).toBe(202);
    expect(await status(run.id)).toBe("waiting_input");

    expect((await raw.post(cancelled("call-9"), { headers: session })).status).toBe(202);
    await stream.done;
    expect(await status(run.id)).toBe("cancelled");
    expect(await cancelEvent(run.id)).toMatchObject({ actor: actor() });
    // No response for the cancelled request; its question is withdrawn (the run ended).
    expect(stream.events.filter((event) => event.id === "call-9")).toEqual([]);
    expect(stream.events.at(-1)).toMatchObject({ method: "notifications/cancelled", params: { requestId: ask.id } });
  });

  it("raw, no session: matched on the credential only when one live call has that ID", async () => {
    const raw = legacyRaw(a.url, token);
    const call = raw.post({
      jsonrpc: "2.0",
      id: 77,
      method: "tools/call",
      params: { name: "approve_expense", arguments: { expense_id: "CX-4", amount: 4 } },
    });
    const run = await waitingRun("CX-4");
    // The string "77" is another request ID than the integer 77.
    expect((await legacyRaw(b.url, token).post(cancelled("77"))).status).toBe(202);
    expect(await status(run.id)).toBe("waiting_input");
    expect((await legacyRaw(b.url, token).post(cancelled(77))).status).toBe(202);
    // A JSON answer cannot be withheld: the call answers the cancelled result (the client ignores it).
    expect((await call).body.result).toMatchObject({ isError: true, content: [{ text: `Task ${run.id} was cancelled.` }] });
    expect(await status(run.id)).toBe("cancelled");

    // Two live sessionless calls with one ID: ambiguous, nothing is cancelled.
    const first = raw.post({
      jsonrpc: "2.0",
      id: "dup",
      method: "tools/call",
      params: { name: "approve_expense", arguments: { expense_id: "CX-5a", amount: 5 } },
    });
    const second = raw.post({
      jsonrpc: "2.0",
      id: "dup",
      method: "tools/call",
      params: { name: "approve_expense", arguments: { expense_id: "CX-5b", amount: 5 } },
    });
    const runs = [await waitingRun("CX-5a"), await waitingRun("CX-5b")];
    expect((await legacyRaw(b.url, token).post(cancelled("dup"))).status).toBe(202);
    for (const r of runs) expect(await status(r.id)).toBe("waiting_input");
    for (const r of runs)
      await answerPendingInput(db.sql, {
        taskId: r.id,
        tenantId,
        key: "decision",
        response: { action: "accept", content: { decision: "approve" } },
        actor: "operator:test",
      });
    await Promise.all([first, second]);
  });

  it("a call already answered is not cancelled by a late notification", async () => {
    const raw = legacyRaw(a.url, token);
    const answered = await raw.request("tools/call", { name: "approve_fast", arguments: { expense_id: "CX-6", amount: 6 } });
    expect(answered.body.result).toMatchObject({ isError: true, structuredContent: { status: "input_required" } });
    const run = await waitingRun("CX-6");
    // The client was told to follow the task up: its late cancellation of the answered call changes nothing.
    expect((await legacyRaw(b.url, token).post(cancelled(answered.body.id))).status).toBe(202);
    expect(await status(run.id)).toBe("waiting_input");
  });
});

describe("withdrawal on the ordinary call's stream", () => {
  it("a question answered in the console is withdrawn with notifications/cancelled, then the result follows", async () => {
    const stream = await ordinaryCall(await legacySession(a.url, token, { elicitation: {} }), "call-w1", {
      expense_id: "CX-7",
      amount: 7,
    });
    const ask = await stream.next((event) => event.method === "elicitation/create");
    const run = await waitingRun("CX-7");
    await answerPendingInput(db.sql, {
      taskId: run.id,
      tenantId,
      key: "decision",
      response: { action: "accept", content: { decision: "approve" } },
      actor: "operator:test",
    });
    const withdrawn = await stream.next((event) => event.method === "notifications/cancelled");
    expect(withdrawn.params).toEqual({ requestId: ask.id, reason: "The question was answered elsewhere" });
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({ id: "call-w1", result: { structuredContent: { decision: "approved" } } });
  });

  it("a run cancelled by an operator withdraws its question and answers the cancelled result", async () => {
    const stream = await ordinaryCall(await legacySession(a.url, token, { elicitation: {} }), "call-w2", {
      expense_id: "CX-8",
      amount: 8,
    });
    const ask = await stream.next((event) => event.method === "elicitation/create");
    const run = await waitingRun("CX-8");
    await cancelTaskInScope(db.sql, { taskId: run.id, scope: null, actor: "operator:test" });
    const withdrawn = await stream.next((event) => event.method === "notifications/cancelled");
    expect(withdrawn.params).toEqual({ requestId: ask.id, reason: "The question is no longer open" });
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({
      id: "call-w2",
      result: { isError: true, content: [{ text: `Task ${run.id} was cancelled.` }] },
    });
  });

  it("a tasks/result stream withdraws its question answered in the console, with the related-task _meta", async () => {
    const session = await legacySession(a.url, token, { elicitation: {} });
    const created = await legacyRaw(a.url, token).request(
      "tools/call",
      { name: "approve_expense", arguments: { expense_id: "CX-10", amount: 10 }, task: {} },
      { headers: session },
    );
    const taskId = created.body.result.task.taskId as string;
    const response = await fetch(b.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "2025-11-25",
        ...session,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: "r-10", method: "tasks/result", params: { taskId } }),
    });
    const stream = readSse(response);
    const ask = await stream.next((event) => event.method === "elicitation/create");
    await answerPendingInput(db.sql, {
      taskId,
      tenantId,
      key: "decision",
      response: { action: "accept", content: { decision: "approve" } },
      actor: "operator:test",
    });
    const withdrawn = await stream.next((event) => event.method === "notifications/cancelled");
    expect(withdrawn.params).toEqual({
      requestId: ask.id,
      reason: "The question was answered elsewhere",
      _meta: { "io.modelcontextprotocol/related-task": { taskId } },
    });
    await stream.done;
    expect(stream.events.at(-1)).toMatchObject({ id: "r-10", result: { structuredContent: { decision: "approved" } } });
  });

  it("the client's own answer is not withdrawn", async () => {
    const session = await legacySession(a.url, token, { elicitation: {} });
    const stream = await ordinaryCall(session, "call-w3", { expense_id: "CX-9", amount: 9 });
    const ask = await stream.next((event) => event.method === "elicitation/create");
    await legacyRaw(b.url, token).post({ jsonrpc: "2.0", id: ask.id, result: { action: "decline" } }, { headers: session });
    await stream.done;
    expect(stream.events.filter((event) => event.method === "notifications/cancelled")).toEqual([]);
    expect(stream.events.at(-1)).toMatchObject({ id: "call-w3", result: { isError: true } });
  });
});
