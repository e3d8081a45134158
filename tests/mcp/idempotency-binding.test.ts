import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { modernRequest, WITH_ELICITATION } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";

// Review F5: tasks are bound to the credential that created them, and an idempotency key must not
// be a way around that. Key B of the same tenant, sending key A's idempotency key (often derived
// from a business id), used to receive A's result, A's pending question or A's task id.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await seedDemo(sql);
  const acme = await findTenantBySlug(sql, "tenant-acme");
  keyA = (await createApiKey(sql, { tenantId: acme?.id as string, name: "a" })).token;
  keyB = (await createApiKey(sql, { tenantId: acme?.id as string, name: "b" })).token;
  server = await startMcpTestServer(sql);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

/** tools/call on the modern wire with `_meta["io.runifold/idempotencyKey"]`; the JSON answer. */
async function callWithKey(token: string, idempotencyKey: string, params: Record<string, unknown>, capabilities = {}) {
  const meta = { "io.runifold/idempotencyKey": idempotencyKey };
  const response = await fetch(server.url, modernRequest("tools/call", params, { token, capabilities, meta }));
  // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary JSON-RPC answers
  return (await response.json()) as any;
}

describe("idempotency keys stay within the credential that used them", () => {
  it("another key of the tenant never receives an ordinary call's result through the same idempotency key", async () => {
    const a = await callWithKey(keyA, "weekly-report-2", {
      name: "durable_report",
      arguments: { report_id: "A-confidential", sections: 2, settle_ms: 0 },
    });
    expect(JSON.stringify(a)).toContain("Report A-confidential");
    const b = await callWithKey(keyB, "weekly-report-2", {
      name: "durable_report",
      arguments: { report_id: "B-other", sections: 1, settle_ms: 0 },
    });
    expect(JSON.stringify(b)).not.toContain("A-confidential");
    expect(JSON.stringify(b)).toContain("Report B-other");
  });

  it("another key never learns a task's id or question through it, and the same key still gets its own run back", async () => {
    const call = (token: string, expense: string) =>
      callWithKey(
        token,
        "exp-77",
        { name: "approve_expense", arguments: { expense_id: expense, amount: 5000, description: "A private" } },
        // approve-expense declares questions: a task call must be able to be asked them (else -32021).
        WITH_ELICITATION,
      );
    const first = await call(keyA, "A-77");
    const again = await call(keyA, "A-77");
    expect(again.result.taskId).toBe(first.result.taskId);
    const other = await call(keyB, "B-77");
    expect(other.result.taskId).toEqual(expect.any(String));
    expect(other.result.taskId).not.toBe(first.result.taskId);
  });
});
