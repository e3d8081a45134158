import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../lib/auth";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { lastJson, runCli } from "./run-cli";

/** `runifold tenants set <slug> --handle-tools on|off` (docs/cli.md): the tenant's task handles for clients without tasks. */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let env: Record<string, string>;

beforeAll(async () => {
  db = await freshDatabase();
  server = await startMcpTestServer(db.sql, { worker: false });
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe("tenants set --handle-tools", { timeout: 120_000 }, () => {
  it("turns the companion tools off and on again, audited; anything but on|off is a usage error", async () => {
    const created = lastJson(await runCli(["tenants", "create", "handles-co", "--json"], env));
    expect(created.handle_tools).toBe(true);
    const key = await createApiKey(db.sql, { tenantId: created.id, name: "k" });
    const plain = modernClient(server.url, { token: key.token, capabilities: {} });
    const names = async () => ((await plain.result("tools/list")).tools as { name: string }[]).map((tool) => tool.name);
    expect(await names()).toContain("runifold_task_wait");

    const off = await runCli(["tenants", "set", "handles-co", "--handle-tools", "off", "--json"], env);
    expect(off.code).toBe(0);
    expect(lastJson(off)).toMatchObject({ slug: "handles-co", handle_tools: false });
    expect(await names()).not.toContain("runifold_task_wait");
    const listed = await runCli(["tenants", "list"], env);
    expect(listed.stdout).toMatch(/HANDLES/);
    expect(listed.lines.find((line) => line.startsWith("handles-co"))).toMatch(/\boff\b/);

    expect((await runCli(["tenants", "set", "handles-co", "--handle-tools", "on"], env)).stdout).toContain(
      "Task handles for clients without tasks are on for tenant handles-co",
    );
    expect(await names()).toContain("runifold_task_wait");
    const audited = await db.sql`SELECT fields FROM audit_events WHERE action = 'tenant.handle_tools' ORDER BY id`;
    expect(audited.map((row) => row.fields.on)).toEqual([false, true]);

    expect((await runCli(["tenants", "set", "handles-co", "--handle-tools", "maybe"], env)).code).toBe(4);
    expect((await runCli(["tenants", "set", "no-such-tenant", "--handle-tools", "on"], env)).code).not.toBe(0);
  });
});
