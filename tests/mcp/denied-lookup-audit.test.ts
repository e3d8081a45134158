import { silentLogger } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { createSignalHandler } from "../../lib/http-api";
import { settleRefusedLookups } from "../../lib/tasks";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";

/**
 * Refused task lookups are audited (security review L6): another tenant's or credential's task id
 * stores one `task.lookup_denied` event (at most one per second per credential), an unknown id
 * none, and the answer stays byte-identical to an unknown id's.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let acmeId: string;
let outsiderTenantId: string;
let acmeTask: string;
const UNKNOWN = "3f1d2c4b-1111-4222-8333-444455556666";
const withoutId = (body: { id?: unknown }) => JSON.stringify({ ...body, id: null });

type AuditRow = { actor: string; tenant_id: string | null; fields: Record<string, string> };
async function deniedEvents(keyId: string): Promise<AuditRow[]> {
  await settleRefusedLookups();
  return sql<AuditRow[]>`
    SELECT actor, tenant_id, fields FROM audit_events
    WHERE action = 'task.lookup_denied' AND fields->>'keyId' IS NOT DISTINCT FROM ${keyId} ORDER BY id`;
}

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  const seeded = await seedDemo(sql);
  acmeId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  outsiderTenantId = (await findTenantBySlug(sql, "conformance"))?.id as string;
  server = await startMcpTestServer(sql, { worker: false });
  const created = await modernClient(server.url, { token: seeded.apiKey as string }).result("tools/call", {
    name: "durable_report",
    arguments: { report_id: "audited", settle_ms: 600_000 },
  });
  acmeTask = created.taskId;
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("task.lookup_denied", () => {
  it("stores one event for another tenant's id over the modern methods, none for an unknown id, same answers", async () => {
    const prober = await createApiKey(sql, { tenantId: outsiderTenantId, name: "prober" });
    const guesser = await createApiKey(sql, { tenantId: outsiderTenantId, name: "guesser" });
    const probing = modernClient(server.url, { token: prober.token });
    const guessing = modernClient(server.url, { token: guesser.token });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const extra = method === "tasks/update" ? { inputResponses: {} } : {};
      const foreign = await probing.request(method, { taskId: acmeTask, ...extra });
      const unknown = await guessing.request(method, { taskId: UNKNOWN, ...extra });
      expect(foreign.body.error.code).toBe(-32602);
      expect(foreign.status).toBe(unknown.status);
      expect(withoutId(foreign.body)).toBe(withoutId(unknown.body));
    }
    // Three refusals within a second: one stored event (the rate limit), naming the caller's side only.
    const events = await deniedEvents(prober.keyId);
    expect(events).toEqual([
      {
        actor: `key:${prober.keyId}`,
        tenant_id: null,
        fields: { method: "tasks/get", taskId: acmeTask, keyId: prober.keyId, callerTenantId: outsiderTenantId },
      },
    ]);
    expect(await deniedEvents(guesser.keyId)).toEqual([]);
    // The foreign cancel changed nothing.
    expect((await sql`SELECT cancel_requested_at FROM runs WHERE id = ${acmeTask}`)[0]?.cancel_requested_at).toBeNull();
  });

  it("stores the legacy era's refusal of another key's task in the same tenant", async () => {
    const sibling = await createApiKey(sql, { tenantId: acmeId, name: "sibling" });
    const raw = legacyRaw(server.url, sibling.token);
    const foreign = await raw.request("tasks/result", { taskId: acmeTask });
    const unknown = await raw.request("tasks/result", { taskId: UNKNOWN });
    expect(foreign.body.error.code).toBe(-32602);
    expect(withoutId(foreign.body)).toBe(withoutId(unknown.body));
    expect(await deniedEvents(sibling.keyId)).toEqual([
      {
        actor: `key:${sibling.keyId}`,
        tenant_id: null,
        fields: { method: "tasks/result", taskId: acmeTask, keyId: sibling.keyId, callerTenantId: acmeId },
      },
    ]);
  });

  it("stores the HTTP signal API's refusal of another tenant's task, answering 404 like an unknown id", async () => {
    const signaller = await createApiKey(sql, { tenantId: outsiderTenantId, name: "signaller" });
    const handler = createSignalHandler({ sql: () => sql, logger: silentLogger });
    const post = (id: string) =>
      handler(
        new Request(`http://127.0.0.1/api/v1/tasks/${id}/signals/go`, {
          method: "POST",
          headers: { authorization: `Bearer ${signaller.token}`, "content-type": "application/json" },
          body: "{}",
        }),
        { id, name: "go" },
      );
    const foreign = await post(acmeTask);
    const unknown = await post(UNKNOWN);
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toBe(await unknown.text());
    await settleRefusedLookups();
    const [event] = await sql<AuditRow[]>`
      SELECT actor, tenant_id, fields FROM audit_events
      WHERE action = 'task.lookup_denied' AND actor = ${`key:${signaller.keyId}`}`;
    expect(event).toEqual({
      actor: `key:${signaller.keyId}`,
      tenant_id: null,
      fields: { method: "POST /api/v1/tasks/{id}/signals/{name}", taskId: acmeTask, callerTenantId: outsiderTenantId },
    });
  });

  it("the probing tenant's own trail looks the same for a foreign and an unknown id (review F8)", async () => {
    const prober = await createApiKey(sql, { tenantId: outsiderTenantId, name: "oracle" });
    const client = modernClient(server.url, { token: prober.token });
    await client.request("tasks/get", { taskId: acmeTask });
    await settleRefusedLookups();
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the per-credential rate limit
    await client.request("tasks/get", { taskId: UNKNOWN });
    await settleRefusedLookups();
    // What the probing tenant's members can read: events stored under their tenant.
    const visible =
      await sql`SELECT fields FROM audit_events WHERE tenant_id = ${outsiderTenantId} AND action = 'task.lookup_denied'`;
    expect(visible).toEqual([]);
    // The owner's side and admins still have the probe (tenant_id NULL: admins only).
    expect(await deniedEvents(prober.keyId)).toHaveLength(1);
  });
});
