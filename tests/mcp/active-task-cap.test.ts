import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";

/**
 * The per-credential cap on live tasks (security review M4), at 2: no worker runs, so every created
 * task stays queued (live) and the third creation of a key is refused, in both eras.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await seedDemo(sql);
  tenantId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  server = await startMcpTestServer(sql, { worker: false, maxActiveTasksPerKey: 2 });
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

const runsOfKey = async (keyId: string) =>
  Number((await sql`SELECT count(*) AS n FROM runs WHERE created_by_key_id = ${keyId}`)[0]?.n);
const call = { name: "durable_report", arguments: { report_id: "cap", settle_ms: 600_000 } };

describe("per-credential cap on live tasks", () => {
  it("refuses the modern era's third live task of a key with a tool error, and creates nothing", async () => {
    const key = await createApiKey(sql, { tenantId, name: "modern-cap" });
    const client = modernClient(server.url, { token: key.token });
    for (let n = 0; n < 2; n++) expect((await client.result("tools/call", call)).taskId).toEqual(expect.any(String));
    const refused = await client.request("tools/call", call);
    expect(refused.status).toBe(200);
    expect(refused.body.error).toBeUndefined();
    expect(refused.body.result).toMatchObject({ resultType: "complete", isError: true });
    expect(refused.body.result.content[0].text).toMatch(/Too many active tasks.*2 tasks/);
    expect(await runsOfKey(key.keyId)).toBe(2);
    // Another key of the same tenant has its own budget.
    const other = await createApiKey(sql, { tenantId, name: "modern-other" });
    expect((await modernClient(server.url, { token: other.token }).result("tools/call", call)).taskId).toEqual(
      expect.any(String),
    );
  });

  it("refuses the legacy era's third live task of a key the same way, and counts only live tasks", async () => {
    const key = await createApiKey(sql, { tenantId, name: "legacy-cap" });
    const raw = legacyRaw(server.url, key.token);
    const ids: string[] = [];
    for (let n = 0; n < 2; n++) {
      const created = await raw.request("tools/call", { ...call, task: {} });
      expect(created.body.result.task.status).toBe("working");
      ids.push(created.body.result.task.taskId);
    }
    const refused = await raw.request("tools/call", { ...call, task: {} });
    expect(refused.status).toBe(200);
    expect(refused.body.error).toBeUndefined();
    expect(refused.body.result.isError).toBe(true);
    expect(refused.body.result.content[0].text).toMatch(/Too many active tasks/);
    // An ordinary (non-task) call creates a run too, so it is refused as well.
    const ordinary = await raw.request("tools/call", call);
    expect(ordinary.body.result.isError).toBe(true);
    expect(await runsOfKey(key.keyId)).toBe(2);
    // Once one of them is terminal, the key may create again.
    const cancelled = await raw.request("tasks/cancel", { taskId: ids[0] });
    expect(cancelled.body.error).toBeUndefined();
    const again = await raw.request("tools/call", { ...call, task: {} });
    expect(again.body.result.task.status).toBe("working");
  });
});
