import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  server = await startMcpTestServer(sql, { worker: false });
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
type Case = { name: string; body: string; headers?: Record<string, string>; status: number; code?: number };

function modern(
  method: string,
  params: Record<string, unknown>,
  name?: string,
  meta: Record<string, unknown> = META,
): Omit<Case, "name" | "status" | "code"> {
  return {
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: meta } }),
    headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name !== undefined ? { "mcp-name": name } : {}) },
  };
}

const TASK = "3f1d2c4b-1111-4222-8333-444455556666";
const CASES: Case[] = [
  { name: "invalid JSON", body: "{not json", status: 400, code: -32700 },
  { name: "empty body", body: "", status: 400, code: -32700 },
  { name: "truncated JSON", body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"', status: 400, code: -32700 },
  { name: "invalid UTF-8", body: "\u00ff\u00fe", status: 400 },
  {
    name: "modern: method not a string",
    ...modern("x", {}),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: 5, params: { _meta: META } }),
    status: 400,
    code: -32600,
  },
  {
    name: "modern: params is a string",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: "x" }),
    headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    status: 400,
    code: -32600,
  },
  {
    name: "modern: id is an object",
    ...modern("tools/list", {}),
    body: JSON.stringify({ jsonrpc: "2.0", id: {}, method: "tools/list", params: { _meta: META } }),
    status: 400,
    code: -32600,
  },
  {
    name: "modern: wrong jsonrpc version",
    body: JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tools/list", params: { _meta: META } }),
    headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    status: 400,
    code: -32600,
  },
  { name: "modern: unknown method", ...modern("tools/explode", {}), status: 404, code: -32601 },
  { name: "modern: tasks/result removed", ...modern("tasks/result", { taskId: TASK }), status: 404, code: -32601 },
  { name: "modern: tasks/list removed", ...modern("tasks/list", {}), status: 404, code: -32601 },
  {
    name: "modern: unsupported version",
    ...modern("tools/list", {}, undefined, { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" }),
    headers: { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" },
    status: 400,
    code: -32022,
  },
  {
    name: "modern: missing capabilities",
    ...modern("tools/list", {}, undefined, { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }),
    status: 400,
    code: -32602,
  },
  {
    name: "modern: missing version header",
    ...modern("tools/list", {}),
    headers: { "mcp-method": "tools/list" },
    status: 400,
    code: -32020,
  },
  {
    name: "modern: method header mismatch",
    ...modern("tools/list", {}),
    headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" },
    status: 400,
    code: -32020,
  },
  { name: "modern: missing Mcp-Name", ...modern("tasks/get", { taskId: TASK }), status: 400, code: -32020 },
  { name: "modern: Mcp-Name mismatch", ...modern("tasks/get", { taskId: TASK }, "other"), status: 400, code: -32020 },
  { name: "modern: tool name missing", ...modern("tools/call", {}, ""), status: 400, code: -32020 },
  { name: "modern: tool name a number", ...modern("tools/call", { name: 5 }, "5"), status: 400, code: -32020 },
  { name: "modern: unknown tool", ...modern("tools/call", { name: "nope" }, "nope"), status: 200, code: -32602 },
  {
    name: "modern: arguments an array",
    ...modern("tools/call", { name: "durable_report", arguments: [1] }, "durable_report"),
    status: 200,
    code: -32602,
  },
  {
    name: "modern: arguments fail the schema",
    ...modern("tools/call", { name: "durable_report", arguments: { report_id: 42 } }, "durable_report"),
    status: 200,
  },
  {
    name: "modern: extra nesting in arguments",
    ...modern("tools/call", { name: "durable_report", arguments: { report_id: { a: { b: { c: [] } } } } }, "durable_report"),
    status: 200,
  },
  {
    name: "modern: taskId not a UUID",
    ...modern("tasks/get", { taskId: "'; DROP TABLE runs; --" }, "'; DROP TABLE runs; --"),
    status: 200,
    code: -32602,
  },
  { name: "modern: taskId a number", ...modern("tasks/get", { taskId: 5 }, "5"), status: 400, code: -32020 },
  {
    name: "modern: unknown task on update",
    ...modern("tasks/update", { taskId: TASK, inputResponses: "garbage" }, TASK),
    status: 200,
    code: -32602,
  },
  { name: "modern: unknown task on cancel", ...modern("tasks/cancel", { taskId: TASK }, TASK), status: 200, code: -32602 },
  {
    name: "modern: listen with taskIds not an array",
    ...modern("subscriptions/listen", { notifications: { taskIds: "x" } }),
    status: 200,
    code: -32602,
  },
  // 2025-06-18 removed batching; 2025-03-26 (and header-less requests) must accept them (tests/mcp/legacy-exactness.test.ts).
  {
    name: "batch array",
    body: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]),
    headers: { "mcp-protocol-version": "2025-11-25" },
    status: 400,
    code: -32600,
  },
  { name: "legacy: unknown method", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "nope/nope" }), status: 200 },
  {
    name: "legacy: tools/call without name",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }),
    status: 200,
  },
  {
    name: "legacy: tasks/get bad id",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: null } }),
    status: 200,
  },
  {
    name: "legacy: tasks/list bad cursor",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/list", params: { cursor: "%%%" } }),
    status: 200,
  },
  {
    name: "legacy: response to an unknown request",
    body: JSON.stringify({ jsonrpc: "2.0", id: "rf-input:nope:nope", result: { action: "accept" } }),
    status: 200,
  },
  { name: "wrong content type", body: "{}", headers: { "content-type": "text/plain" }, status: 415 },
  {
    name: "oversized body",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(1_100_000) } }),
    status: 413,
  },
  // On 2025-11-25 an array is never a batch (under 2025-03-26 it is, answered element by element).
  {
    name: "deeply nested JSON",
    body: `${"[".repeat(5_000)}${"]".repeat(5_000)}`,
    headers: { "mcp-protocol-version": "2025-11-25" },
    status: 400,
    code: -32600,
  },
  {
    // Past the depth limit inside an ordinary modern request: refused up front, never a 5xx from
    // recursive code further in (review L7).
    name: "deep nesting inside params",
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { pad: JSON.parse(`${"[".repeat(100)}${"]".repeat(100)}`) },
    }),
    status: 400,
    code: -32600,
  },
  {
    name: "NUL past the depth limit (the old scan stopped at 64 levels and let it through)",
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { pad: JSON.parse(`${"[".repeat(70)}"a\\u0000b"${"]".repeat(70)}`) },
    }),
    status: 400,
    code: -32600,
  },
  { name: "null body", body: "null", status: 400, code: -32600 },
  { name: "a bare number", body: "42", status: 400, code: -32600 },
  {
    name: "NUL bytes in strings",
    ...modern("tools/call", { name: "durable_report", arguments: { report_id: "a\u0000b" } }, "durable_report"),
    status: 200, // an in-band parameter error (issue 15; 400 is for envelope, header and capability errors)
    code: -32602,
  },
];

describe("bad input corpus over /api/mcp", () => {
  it(`answers ${CASES.length} malformed requests with the right error, never a 5xx or internal detail, and writes nothing`, async () => {
    const before = await sql`SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM run_events) AS events`;
    for (const testCase of CASES) {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...testCase.headers },
        body: testCase.body,
      });
      const text = await response.text();
      const context = `${testCase.name}: ${response.status} ${text.slice(0, 300)}`;
      expect(response.status, context).toBeLessThan(500);
      if (testCase.status < 300 || testCase.status >= 400) {
        // legacy answers are the legacy leg's business; only their status class is pinned here
        if (!testCase.name.startsWith("legacy")) {
          expect(response.status, context).toBe(testCase.status);
        }
      }
      expect(text, context).not.toMatch(/\bat \S+\.(ts|js):\d+|node_modules|postgres|SELECT |stack/i);
      if (testCase.code !== undefined) expect(JSON.parse(text).error?.code, context).toBe(testCase.code);
    }
    const after = await sql`SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM run_events) AS events`;
    expect(after[0]).toEqual(before[0]);
  });
});
