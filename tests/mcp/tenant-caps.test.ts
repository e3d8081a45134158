import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { createCredentialLimits } from "../../lib/mcp";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { type McpTestServer, startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";

/**
 * Review F16: the creation budget was per credential only, and members mint keys and grants without
 * limit, so one tenant could multiply it. A tenant's credentials together share a per-tenant budget
 * (RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_TENANT); another tenant's is its own.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: McpTestServer;
const clock = Date.now();
const limits = createCredentialLimits({
  maxTaskCreatesPerMinutePerKey: 100,
  maxTaskCreatesPerMinutePerTenant: 3,
  now: () => clock,
});

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await seedDemo(sql);
  server = await startMcpTestServer(sql, { worker: false, limits });
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

const call = { name: "durable_report", arguments: { report_id: "tenant-caps", settle_ms: 600_000 } };
const keyOf = async (slug: string, name: string) =>
  (await createApiKey(sql, { tenantId: (await findTenantBySlug(sql, slug))?.id as string, name })).token;

describe("per-tenant creation budget (review F16)", () => {
  it("new keys of one tenant do not multiply its budget; another tenant keeps its own", async () => {
    const created: string[] = [];
    for (const name of ["k1", "k2", "k3"]) {
      const result = await modernClient(server.url, { token: await keyOf("tenant-acme", name) }).result("tools/call", call);
      created.push(result.taskId);
    }
    expect(created.every(Boolean)).toBe(true);
    const fourth = await modernClient(server.url, { token: await keyOf("tenant-acme", "k4") }).result("tools/call", call);
    expect(fourth).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/this tenant may create 3 tasks a minute/) }],
    });
    const runs = await sql`SELECT count(*)::int AS n FROM runs`;
    expect(runs[0]?.n).toBe(3);
    const other = await modernClient(server.url, { token: await keyOf("conformance", "c1") }).result("tools/call", {
      name: "slow_compute",
      arguments: { seconds: 0 },
    });
    expect(other.taskId).toEqual(expect.any(String));
  });
});
