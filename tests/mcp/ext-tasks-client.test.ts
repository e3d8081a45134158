import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type ApplicationInputRequest,
  createTaskSessionFromClient,
  type JsonRpcResponse,
  type RawClientDispatch,
  resultFromTaskOutcome,
  type SerializedTaskReference,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";

/**
 * Acceptance (issue 15): the official tasks requester, `@modelcontextprotocol/ext-tasks`, on the SDK v2
 * client, in both eras against the real handler over real HTTP: a durable tool runs as a task to its
 * result, and a task that asks for input is answered through the package's input callback.
 * 2025-11-25 goes through the SDK client alone; 2026-07-28 needs the package's raw dispatch and
 * request framing (its README: the SDK's wire codecs reject V2 task traffic), given here as a plain
 * fetch of one JSON-RPC message per POST.
 */
const MODERN = "2026-07-28";
const CLIENT_INFO = { name: "ext-tasks-acceptance", version: "1.0.0" };
const CAPABILITIES = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

let nextId = 1;

/**
 * The host's request coordinator: the package hands over the request without its envelope; this
 * frames it (jsonrpc, id) and POSTs one message, as the 2026-07-28 transport does; an SSE answer is
 * read to its response.
 */
const rawDispatch: RawClientDispatch = async (request, options) => {
  const message = request as { method?: string; params?: { name?: string; taskId?: string } };
  const routedName = message.params?.name ?? message.params?.taskId;
  const headers = new Headers({
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
  });
  if (message.method) headers.set("mcp-method", message.method);
  // 2026-07-28 Streamable HTTP: the routed name (a tool's, a task's ID) travels in Mcp-Name too.
  if (routedName) headers.set("mcp-name", routedName);
  // The package's own per-request headers win (set, not append: header names are case-insensitive).
  for (const [name, value] of Object.entries(options?.context?.headers ?? {})) headers.set(name, value);
  const response = await fetch(server.url, {
    method: "POST",
    signal: options?.signal,
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, ...(request as object) }),
  });
  const text = await response.text();
  const json = (response.headers.get("content-type") ?? "").includes("text/event-stream") ? lastSseMessage(text) : text;
  const body = JSON.parse(json) as { result?: unknown; error?: Extract<JsonRpcResponse, { kind: "error" }>["error"] };
  return body.error ? { kind: "error", error: body.error } : ({ kind: "result", result: body.result } as JsonRpcResponse);
};

function lastSseMessage(stream: string): string {
  const data = stream
    .split("\n\n")
    .map((event) =>
      event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n"),
    )
    .filter((payload) => payload.includes('"result"') || payload.includes('"error"'));
  return data.at(-1) ?? "{}";
}

async function sessionFor(
  era: "legacy" | "modern",
  answers: ApplicationInputRequest[],
): Promise<{ session: TaskEnabledSession; client: Client }> {
  const mode = era === "legacy" ? ("legacy" as const) : { pin: MODERN };
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode }, capabilities: { elicitation: { form: {} } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  const onInputRequest = async (request: ApplicationInputRequest) => {
    answers.push(request);
    return { action: "accept" as const, content: { decision: "approve" } } as never;
  };
  const common = { endpointId: `runifold-${era}`, onInputRequest };
  const session =
    era === "legacy"
      ? createTaskSessionFromClient(client, common)
      : createTaskSessionFromClient(client, {
          ...common,
          rawDispatch,
          v2RequestFraming: { protocolVersion: MODERN, clientInfo: CLIENT_INFO, clientCapabilities: CAPABILITIES },
        });
  return { session, client };
}

describe.each(["legacy", "modern"] as const)("@modelcontextprotocol/ext-tasks, %s era", (era) => {
  it("runs a durable tool as a task to its result", async () => {
    const { session, client } = await sessionFor(era, []);
    try {
      const execution = await session.callTool(
        "durable_report",
        { report_id: `ext-${era}`, settle_ms: 0 },
        {
          task: { preference: "require" },
        },
      );
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as { content: { type: string; text: string }[] };
      expect(JSON.stringify(result.content)).toContain(`Report ext-${era}`);
    } finally {
      await session.close();
      await client.close();
    }
  });

  it("answers a task's input request through the package's input callback, recorded with the key", async () => {
    const answers: ApplicationInputRequest[] = [];
    const { session, client } = await sessionFor(era, answers);
    try {
      const execution = await session.callTool(
        "approve_expense",
        { expense_id: `X-${era}`, amount: 42 },
        {
          task: { preference: "require" },
        },
      );
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe("completed");
      expect(answers.map((request) => request.kind)).toEqual(["elicitation"]);
      const taskId = execution.kind === "task" ? String(execution.handle.taskId) : "";
      const answered = await sql`SELECT answered_by FROM run_inputs WHERE run_id = ${taskId}`;
      expect(answered.map((row) => row.answered_by)).toEqual([expect.stringMatching(/^key:[0-9a-f]{16}$/)]);
    } finally {
      await session.close();
      await client.close();
    }
  });

  it("hands a running task off and resumes it by reference from a new session, to its result", async () => {
    const first = await sessionFor(era, []);
    let reference: SerializedTaskReference | undefined;
    try {
      const execution = await first.session.callTool(
        "durable_report",
        { report_id: `resume-${era}`, settle_ms: 1_000 },
        {
          task: { preference: "require" },
        },
      );
      if (execution.kind !== "task") throw new Error("expected a task");
      await execution.handoff((ref) => {
        reference = ref;
      });
    } finally {
      // The first process goes away after persisting the reference: its connection closes, its
      // session object is simply dropped. (ext-tasks 0.2.2's session.close() still cancels an
      // execution it handed off in the 2026-07-28 generation: execution.close() sees it unsettled.)
      await first.client.close();
    }
    expect(reference).toMatchObject({ taskId: expect.any(String) });
    const second = await sessionFor(era, []);
    try {
      const snapshot = await second.session.task((reference as SerializedTaskReference).taskId).snapshot();
      console.log(
        "DBG",
        JSON.stringify(await sql`SELECT type, payload FROM run_events WHERE run_id = ${String(reference?.taskId)} ORDER BY id`),
      );
      expect(["working", "completed"]).toContain(snapshot.status);
      const resumed = await second.session.resumeTask(reference as SerializedTaskReference);
      const { outcome } = await resumed.settle();
      const result = resultFromTaskOutcome(outcome) as { content: { type: string; text: string }[] };
      expect(JSON.stringify(result.content)).toContain(`Report resume-${era}`);
    } finally {
      await second.session.close();
      await second.client.close();
    }
  });
});
