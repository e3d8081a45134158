import type { Logger } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKey } from "../../db/queries/api-keys";
import { createTenant, findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitForRunStatus } from "../helpers/runs";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let acmeToken: string;
const logLines: string[] = [];
const capture: Logger = {
  debug: (m, f) => logLines.push(JSON.stringify({ m, f })),
  info: (m, f) => logLines.push(JSON.stringify({ m, f })),
  warn: (m, f) => logLines.push(JSON.stringify({ m, f })),
  error: (m, f) => logLines.push(JSON.stringify({ m, f })),
};

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  acmeToken = (await seedDemo(sql)).apiKey as string;
  server = await startMcpTestServer(sql, { logger: capture, allowedOrigins: ["https://ops.example.com"] });
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

const runCount = async () => Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n);
const withoutId = (body: { id?: unknown }) => JSON.stringify({ ...body, id: null });

describe("authentication and authorization at /api/mcp", () => {
  it("answers missing, malformed, unknown, wrong, revoked, expired and disabled-tenant keys with identical 401s and runs nothing", async () => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const revoked = await createApiKey(sql, { tenantId: acme?.id as string, name: "revoked" });
    await revokeApiKey(sql, { keyId: revoked.keyId });
    const expired = await createApiKey(sql, {
      tenantId: acme?.id as string,
      name: "expired",
      expiresAt: new Date(Date.now() - 1000),
    });
    const other = await createTenant(sql, { slug: "disabled-co", name: "Disabled" });
    const disabled = await createApiKey(sql, { tenantId: other.id, name: "d" });
    await sql`UPDATE tenants SET disabled_at = now() WHERE id = ${other.id}`;
    const [, keyId] = /^rf_([0-9a-f]{16})_/.exec(acmeToken) ?? [];
    const candidates = [
      undefined,
      "not-a-key",
      `rf_${"0".repeat(16)}_${"A".repeat(43)}`,
      `rf_${keyId}_${"B".repeat(43)}`,
      revoked.token,
      expired.token,
      disabled.token,
    ];
    const before = await runCount();
    const bodies = new Set<string>();
    for (const token of candidates) {
      const response = await modernClient(server.url, { token }).request("tools/call", {
        name: "durable_report",
        arguments: { report_id: "x" },
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
      bodies.add(JSON.stringify(response.body));
    }
    expect(bodies.size).toBe(1);
    expect(await runCount()).toBe(before);
  });

  it("refuses a key without the needed scope with 403 and runs nothing", async () => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const readOnly = await createApiKey(sql, { tenantId: acme?.id as string, name: "ro", scopes: ["mcp", "tasks:read"] });
    const before = await runCount();
    const response = await modernClient(server.url, { token: readOnly.token }).request("tools/call", {
      name: "durable_report",
      arguments: { report_id: "x" },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(await runCount()).toBe(before);
  });

  it("a credential without tasks:write runs no tool on any path: modern without the tasks extension, legacy ordinary, older versions (review F2)", async () => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const before = await runCount();
    for (const scopes of [["mcp"], ["mcp", "tasks:read"]] as const) {
      const key = await createApiKey(sql, {
        tenantId: acme?.id as string,
        name: `no-write-${scopes.length}`,
        scopes: [...scopes],
      });
      const call = { name: "durable_report", arguments: { report_id: "mcp-only-scope", sections: 1, settle_ms: 0 } };
      const modern = await modernClient(server.url, { token: key.token, capabilities: {} }).request("tools/call", call);
      expect(modern.status).toBe(403);
      expect(modern.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
      expect(modern.headers.get("www-authenticate")).toContain('scope="tasks:write"');
      for (const version of ["2025-11-25", "2025-06-18"]) {
        const legacy = await legacyRaw(server.url, key.token, { version }).request("tools/call", call);
        expect(legacy.status).toBe(403);
        expect(legacy.body.error.message).toContain("tasks:write");
      }
      // Listing tools is what `mcp` alone is for.
      const listed = await modernClient(server.url, { token: key.token, capabilities: {} }).request("tools/list", {});
      expect(listed.status).toBe(200);
    }
    expect(await runCount()).toBe(before);
  });

  it("refuses a present, unlisted Origin with 403 before authentication, and accepts a listed one", async () => {
    const client = modernClient(server.url, { token: acmeToken });
    const evil = await client.request("server/discover", {}, { headers: { origin: "https://evil.example" } });
    expect(evil.status).toBe(403);
    const nullOrigin = await client.request("server/discover", {}, { headers: { origin: "null" } });
    expect(nullOrigin.status).toBe(403);
    const listed = await client.request("server/discover", {}, { headers: { origin: "https://ops.example.com" } });
    expect(listed.status).toBe(200);
  });

  it("answers another tenant's task ID, an unknown ID and an expired handle byte-identically", async () => {
    const acme = modernClient(server.url, { token: acmeToken });
    const created = await acme.result("tools/call", {
      name: "durable_report",
      arguments: { report_id: "mine", settle_ms: 600_000 },
    });
    const expiring = await acme.result("tools/call", {
      name: "durable_report",
      arguments: { report_id: "old", settle_ms: 600_000 },
    });
    await sql`UPDATE runs SET ttl_ms = 1 WHERE id = ${expiring.taskId}`;
    const conformance = await findTenantBySlug(sql, "conformance");
    const outsider = modernClient(server.url, {
      token: (await createApiKey(sql, { tenantId: conformance?.id as string, name: "o" })).token,
    });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const extra = method === "tasks/update" ? { inputResponses: {} } : {};
      const foreign = await outsider.request(method, { taskId: created.taskId, ...extra });
      const unknown = await outsider.request(method, { taskId: "3f1d2c4b-1111-4222-8333-444455556666", ...extra });
      const expired = await acme.request(method, { taskId: expiring.taskId, ...extra });
      expect(foreign.body.error.code).toBe(-32602);
      expect(foreign.status).toBe(unknown.status);
      expect(expired.status).toBe(unknown.status);
      expect(withoutId(foreign.body)).toBe(withoutId(unknown.body));
      expect(withoutId(expired.body)).toBe(withoutId(unknown.body));
    }
    // The foreign cancel changed nothing; the expired run keeps going (the handle is gone, not the work):
    // both reach their 10-minute sleep, which a cancelled run (terminal) never could.
    for (const taskId of [created.taskId, expiring.taskId]) {
      await waitForRunStatus(sql, taskId, "sleeping");
      expect((await sql`SELECT cancel_requested_at FROM runs WHERE id = ${taskId}`)[0]?.cancel_requested_at).toBeNull();
    }
  });

  it("never stores or logs a key's secret", async () => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    const fresh = await createApiKey(sql, { tenantId: acme?.id as string, name: "audit" });
    const secret = fresh.token.split("_").slice(2).join("_");
    await modernClient(server.url, { token: fresh.token }).request("tools/list");
    await modernClient(server.url, { token: `${fresh.token}x` }).request("tools/list");
    const tables = await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`;
    for (const { tablename } of tables) {
      const rows = await sql.unsafe(`SELECT row_to_json(t)::text AS j FROM "${tablename}" t`);
      for (const row of rows) expect(row.j).not.toContain(secret);
    }
    expect(logLines.length).toBeGreaterThan(0); // the failed attempt was logged...
    for (const line of logLines) expect(line).not.toContain(secret); // ...without the secret
  });
});
