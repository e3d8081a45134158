import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw, legacySession } from "../helpers/legacy-client";
import { legacyPost, modernMeta, modernRequest } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { readSse } from "../helpers/sse";

/**
 * review3-mcp D5, D6, D7, D9, D12, D13 (issue 29 item 5): protocol exactness the previous code got
 * wrong, each probed on the wire as the review did.
 */
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
  await server?.close();
  await db?.drop();
});

async function post(request: { method: "POST"; headers: Record<string, string>; body: string }) {
  const response = await fetch(server.url, request);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A modern tools/list whose `_meta` says `metaVersion` and whose header says `headerVersion`. */
function versioned(metaVersion: string, headerVersion: string) {
  const request = modernRequest("tools/list", {}, { token });
  const body = JSON.parse(request.body);
  body.params._meta["io.modelcontextprotocol/protocolVersion"] = metaVersion;
  return { ...request, headers: { ...request.headers, "mcp-protocol-version": headerVersion }, body: JSON.stringify(body) };
}

describe("modern envelope and versions", () => {
  it("D5: -32022 lists only versions server/discover lists", async () => {
    const discovered = await modernClient(server.url, { token }).result("server/discover");
    const refused = await post(versioned("1900-01-01", "1900-01-01"));
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe(-32022);
    expect(refused.body.error.data.requested).toBe("1900-01-01");
    expect(refused.body.error.data.supported.length).toBeGreaterThan(0);
    for (const version of refused.body.error.data.supported) expect(discovered.supportedVersions).toContain(version);
  });

  it("D6: a _meta version that disagrees with the header is a header mismatch (-32020), whatever the version", async () => {
    const mismatch = await post(versioned("2099-01-01", "2026-07-28"));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe(-32020);
  });

  it("D12: the Base64 sentinel is decoded on Mcp-Name only; on Mcp-Method and MCP-Protocol-Version it does not match", async () => {
    const sentinel = (value: string) => `=?base64?${Buffer.from(value).toString("base64")}?=`;
    const method = modernRequest("tools/list", {}, { token, headers: { "mcp-method": sentinel("tools/list") } });
    expect(await post(method)).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    const version = modernRequest("tools/list", {}, { token, headers: { "mcp-protocol-version": sentinel("2026-07-28") } });
    expect(await post(version)).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    const name = modernRequest(
      "tools/call",
      { name: "durable_report", arguments: { report_id: "s", settle_ms: 0 } },
      { token, headers: { "mcp-name": sentinel("durable_report") } },
    );
    expect((await post(name)).status).toBe(200);
  });

  it("D7: initialize that states the 2026-07-28 era is a removed method (404, -32601); a plain one is still legacy", async () => {
    const modern = await post({
      method: "POST",
      headers: { ...modernRequest("tools/list", {}, { token }).headers, "mcp-method": "initialize" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2026-07-28", capabilities: {}, clientInfo: { name: "t", version: "1" }, _meta: modernMeta() },
      }),
    });
    expect(modern.status).toBe(404);
    expect(modern.body.error.code).toBe(-32601);
    // The header alone says 2026-07-28 too.
    const byHeader = await post(
      legacyPost(
        { jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: "2026-07-28", capabilities: {} } },
        { token, version: "2026-07-28" },
      ),
    );
    expect(byHeader.status).toBe(404);
    const plain = await legacyRaw(server.url, token, { version: null }).request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });
    expect(plain.status).toBe(200);
    expect(plain.body.result.protocolVersion).toBe("2025-11-25");
  });
});

describe("legacy sessions", () => {
  it("D13: without a version header, a session's negotiated 2025-11-25 applies: params.task makes a task, a batch is refused", async () => {
    const session = await legacySession(server.url, token, {});
    const raw = legacyRaw(server.url, token, { version: null, headers: session });
    const call = await raw.request("tools/call", {
      name: "durable_report",
      arguments: { report_id: "D13", settle_ms: 0 },
      task: { ttl: 60_000 },
    });
    expect(call.status).toBe(200);
    expect(call.body.result.task).toMatchObject({ taskId: expect.any(String), status: "working" });
    const batch = await raw.post([{ jsonrpc: "2.0", id: 7, method: "ping" }]);
    expect(batch.status).toBe(400);
    expect(Array.isArray(batch.body)).toBe(false);
    // No session and no header: 2025-03-26 as before (batches served).
    const sessionless = await legacyRaw(server.url, token, { version: null }).post([{ jsonrpc: "2.0", id: 8, method: "ping" }]);
    expect(sessionless.status).toBe(200);
    expect(sessionless.body).toEqual([{ jsonrpc: "2.0", id: 8, result: {} }]);
  });

  it("D9: a question re-sent on a re-opened stream of the same session carries a fresh request ID; either answer resumes the task once", async () => {
    const session = await legacySession(server.url, token, { elicitation: {} });
    const raw = legacyRaw(server.url, token, { headers: session });
    const created = await raw.request("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: "D9", amount: 1 },
      task: {},
    });
    const taskId = created.body.result.task.taskId;
    const ask = async () => {
      const abort = new AbortController();
      const stream = readSse(
        await fetch(server.url, {
          ...legacyPost(
            { jsonrpc: "2.0", id: `r-${Math.random()}`, method: "tasks/result", params: { taskId } },
            { token, headers: session },
          ),
          signal: abort.signal,
        }),
      );
      stream.done.catch(() => {});
      const question = await stream.next((event) => event.method === "elicitation/create", 20_000);
      abort.abort();
      return question;
    };
    const first = await ask();
    // The stream's delivery claim is released when it closes; give the server a moment to notice.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await ask();
    expect(first.id).not.toBe(second.id);
    const answer = { action: "accept", content: { decision: "approve" } };
    expect((await raw.post({ jsonrpc: "2.0", id: first.id, result: answer })).status).toBe(202);
    expect(
      (await raw.post({ jsonrpc: "2.0", id: second.id, result: { action: "accept", content: { decision: "reject" } } })).status,
    ).toBe(202);
    const done = await raw.request("tasks/result", { taskId }, { accept: "application/json" });
    expect(done.body.result.structuredContent).toMatchObject({ decision: "approved" });
    const answers = await sql`SELECT count(*)::int AS n FROM run_inputs WHERE run_id = ${taskId} AND response IS NOT NULL`;
    expect(answers[0]?.n).toBe(1);
  });
});
