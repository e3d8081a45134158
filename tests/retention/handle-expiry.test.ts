import { randomUUID } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRetention } from "../../lib/retention";
import { readTaskRecord, readTombstone } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRequest, type McpHttpRequest, modernRequest } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { waitForHandleExpiry, waitForRunStatus, wakeSleepingRun } from "../helpers/runs";

/**
 * ttlMs is handle lifetime, not a deadline: past it every MCP method answers an ID exactly like
 * one that never existed (same bytes, modulo the JSON-RPC id), while the run itself goes on to
 * complete and stays readable for operators. After the cleaner purges it, still the same bytes.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let tenantId: string;
let rpcId = 1000;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  // The tenant cap (grantTtlMs floors at 1000 ms) bounds every handle of tenant-acme to one second.
  const rows = await sql`UPDATE tenants SET max_ttl_ms = 1000 WHERE slug = 'tenant-acme' RETURNING id`;
  tenantId = rows[0]?.id as string;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

type Raw = { status: number; contentType: string | null; text: string };

/** One POST, the body kept as bytes (text) with this request's id masked. */
async function post(request: McpHttpRequest, id: number): Promise<Raw> {
  const response = await fetch(server.url, request);
  const text = (await response.text()).replace(`"id":${id}`, '"id":"<masked>"');
  return { status: response.status, contentType: response.headers.get("content-type"), text };
}

/** 2026-07-28: per-request _meta envelope and routing headers. */
function modern(method: string, params: Record<string, unknown>): Promise<Raw> {
  const id = rpcId++;
  return post(modernRequest(method, params, { token, id, clientInfo: { name: "retention-tests", version: "1" } }), id);
}

/** 2025-11-25: stateless after initialize; every request names its version in the header. */
function legacy(method: string, params: Record<string, unknown>): Promise<Raw> {
  const id = rpcId++;
  return post(legacyRequest(method, params, { token, id }), id);
}

async function expectAnswersLikeUnknown(
  send: (method: string, params: Record<string, unknown>) => Promise<Raw>,
  methods: [string, Record<string, unknown>][],
  taskId: string,
) {
  for (const [method, extra] of methods) {
    const known = await send(method, { taskId, ...extra });
    const unknown = await send(method, { taskId: randomUUID(), ...extra });
    expect(known, method).toEqual(unknown);
    expect(JSON.parse(known.text).error?.code, method).toBe(-32602);
  }
}

const statusOf = async (id: string) => (await readTaskRecord(sql, { tenantId, taskId: id }))?.status;

describe("ttlMs is handle lifetime; expired and purged IDs answer like unknown ones", () => {
  it("modern era: tasks/get, tasks/update, tasks/cancel", async () => {
    const created = JSON.parse(
      (await modern("tools/call", { name: "durable_report", arguments: { report_id: "ttl", settle_ms: 600_000 } })).text,
    ).result;
    expect(created).toMatchObject({ resultType: "task", ttlMs: 1_000 });
    const taskId = created.taskId as string;
    const methods: [string, Record<string, unknown>][] = [
      ["tasks/get", {}],
      ["tasks/update", { inputResponses: { decision: { action: "accept", content: { decision: "approve" } } } }],
      ["tasks/cancel", {}],
    ];

    // Expired while the work is still going (the run sleeps for ten minutes, until this test wakes it).
    await waitForHandleExpiry(sql, taskId);
    expect(["queued", "leased", "sleeping"]).toContain(await statusOf(taskId));
    await expectAnswersLikeUnknown(modern, methods, taskId);

    // The cancel above did nothing: the run completes normally and operators still read it.
    await wakeSleepingRun(sql, taskId);
    await waitForRunStatus(sql, taskId, "completed");
    const record = await readTaskRecord(sql, { tenantId, taskId });
    expect(record).toMatchObject({ status: "completed", handleExpired: true, ttlMs: 1_000 });
    expect(record?.terminal?.result?.structuredContent).toMatchObject({ reportId: "ttl" });
    await expectAnswersLikeUnknown(modern, methods, taskId);

    // Purged (retention measured a week ahead): no row at all, the same answer, and a tombstone.
    const report = await runRetention(sql, { holder: "ttl-test", now: new Date(Date.now() + 8 * 86_400_000) });
    expect(report).toMatchObject({ status: "completed" });
    expect(await readTaskRecord(sql, { tenantId, taskId })).toBeUndefined();
    expect(await readTombstone(sql, { tenantId, runId: taskId })).toMatchObject({ finalStatus: "completed" });
    await expectAnswersLikeUnknown(modern, methods, taskId);
  });

  it("legacy era: tasks/get, tasks/result, tasks/cancel (requested ttl capped by the tenant)", async () => {
    const init = JSON.parse(
      (
        await legacy("initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "retention-tests", version: "1" },
        })
      ).text,
    );
    expect(init.result.protocolVersion).toBe("2025-11-25");
    const created = JSON.parse(
      (
        await legacy("tools/call", {
          name: "durable_report",
          arguments: { report_id: "ttl-l", settle_ms: 600_000 },
          task: { ttl: 60_000 },
        })
      ).text,
    );
    expect(created.result.task).toMatchObject({ status: "working", ttl: 1_000 });
    const taskId = created.result.task.taskId as string;
    const methods: [string, Record<string, unknown>][] = [
      ["tasks/get", {}],
      ["tasks/result", {}],
      ["tasks/cancel", {}],
    ];

    await waitForHandleExpiry(sql, taskId);
    expect(["queued", "leased", "sleeping"]).toContain(await statusOf(taskId));
    await expectAnswersLikeUnknown(legacy, methods, taskId);

    await wakeSleepingRun(sql, taskId);
    await waitForRunStatus(sql, taskId, "completed");
    expect(await readTaskRecord(sql, { tenantId, taskId })).toMatchObject({ status: "completed", handleExpired: true });
    await expectAnswersLikeUnknown(legacy, methods, taskId);

    expect(await runRetention(sql, { holder: "ttl-test", now: new Date(Date.now() + 8 * 86_400_000) })).toMatchObject({
      status: "completed",
    });
    expect(await readTaskRecord(sql, { tenantId, taskId })).toBeUndefined();
    await expectAnswersLikeUnknown(legacy, methods, taskId);
  });
});
