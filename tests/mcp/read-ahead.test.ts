import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKeyAsAdmin } from "../../db/queries/api-keys";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";

/**
 * The modern tasks/get names its task in `Mcp-Name`, so the gate reads the API key and the task in
 * one statement (lib/tasks readApiKeyWithTask) — and the binding rules hold on that read exactly as
 * on the ordinary one: another credential's or tenant's task, and a revoked key, answer as before.
 * A modern tools/call names its tool there: the key, the route and the live-task count are one read.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let counted: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let statements = 0;

beforeAll(async () => {
  db = await freshDatabase();
  token = (await seedDemo(db.sql)).apiKey as string;
  // The server's own pool, counting every statement it sends.
  counted = postgres(db.url, { max: 4, onnotice: () => {}, debug: () => statements++ });
  // No in-process worker: its polls would share the counted pool (the tasks stay "working").
  server = await startMcpTestServer(counted, { worker: false });
});
afterAll(async () => {
  await server.close();
  await counted.end();
  await db.drop();
});

const withoutId = (body: { id?: unknown }) => JSON.stringify({ ...body, id: null });

describe("modern tasks/get: the key and the task in one read", () => {
  it("answers a task with one statement, and the same as without the header", async () => {
    const client = modernClient(server.url, { token });
    const created = await client.result("tools/call", { name: "durable_report", arguments: { report_id: "one-read" } });
    await client.result("tasks/get", { taskId: created.taskId }); // warm-up: the key's last-used touch
    const before = statements;
    const viaHeader = await client.request("tasks/get", { taskId: created.taskId });
    expect(statements - before).toBe(1);
    expect(viaHeader.body.result.taskId).toBe(created.taskId);
    // Without Mcp-Name the gate cannot read ahead: the header check refuses the request instead.
    const noHeader = await client.request("tasks/get", { taskId: created.taskId }, { headers: { "mcp-name": "" } });
    expect(noHeader.body.error?.code).toBe(-32020);
  });

  it("a task-creating tools/call reads the key, the route and the live-task count in one statement", async () => {
    const client = modernClient(server.url, { token });
    await client.result("tools/call", { name: "durable_report", arguments: { report_id: "warm" } });
    const before = statements;
    const created = await client.result("tools/call", { name: "durable_report", arguments: { report_id: "two-reads" } });
    // The gate's read, then the create (its wake-up NOTIFY inside it: the pool's only create in flight).
    expect(statements - before).toBe(2);
    expect(created.taskId).toBeTypeOf("string");
    // A tool the tenant does not route is unknown, read ahead or not.
    const unknown = await client.request("tools/call", { name: "no_such_tool", arguments: {} });
    expect(unknown.body.error?.code).toBe(-32602);
    expect(unknown.body.error?.message).toBe("Unknown tool: no_such_tool");
  });

  it("a header naming another task than the body is refused (-32020), and the read-ahead is not used", async () => {
    const client = modernClient(server.url, { token });
    const a = await client.result("tools/call", { name: "durable_report", arguments: { report_id: "a" } });
    const b = await client.result("tools/call", { name: "durable_report", arguments: { report_id: "b" } });
    const mismatched = await client.request("tasks/get", { taskId: a.taskId }, { headers: { "mcp-name": b.taskId } });
    expect(mismatched.body.error?.code).toBe(-32020);
    expect(JSON.stringify(mismatched.body)).not.toContain('"status"');
  });

  it("another key of the tenant, another tenant's key and an unknown id answer byte-identically; a revoked key gets 401", async () => {
    const owner = modernClient(server.url, { token });
    const created = await owner.result("tools/call", { name: "durable_report", arguments: { report_id: "mine" } });
    const acme = await findTenantBySlug(db.sql, "tenant-acme");
    const conformance = await findTenantBySlug(db.sql, "conformance");
    const sibling = modernClient(server.url, {
      token: (await createApiKey(db.sql, { tenantId: acme?.id as string, name: "sibling" })).token,
    });
    const outsider = modernClient(server.url, {
      token: (await createApiKey(db.sql, { tenantId: conformance?.id as string, name: "outsider" })).token,
    });
    const unknown = await outsider.request("tasks/get", { taskId: "3f1d2c4b-1111-4222-8333-444455556666" });
    for (const caller of [sibling, outsider]) {
      const answer = await caller.request("tasks/get", { taskId: created.taskId });
      expect(answer.status).toBe(unknown.status);
      expect(withoutId(answer.body)).toBe(withoutId(unknown.body));
    }
    expect(unknown.body.error.code).toBe(-32602);
    const revoked = await createApiKey(db.sql, { tenantId: acme?.id as string, name: "revoked" });
    await revokeApiKeyAsAdmin(db.sql, revoked.keyId);
    const refused = await modernClient(server.url, { token: revoked.token }).request("tasks/get", { taskId: created.taskId });
    expect(refused.status).toBe(401);
  });
});
