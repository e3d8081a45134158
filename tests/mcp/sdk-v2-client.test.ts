import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";

/**
 * Acceptance (issue 15): the official SDK v2 client (@modelcontextprotocol/client) in `auto` and in
 * pinned-modern mode, against the real handler over real HTTP. Before caching hints were added,
 * listTools() failed with `Invalid result for tools/list: … ttlMs … cacheScope`.
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
  await server.close();
  await db.drop();
});

async function connect(mode: "auto" | { pin: string }): Promise<Client> {
  const client = new Client({ name: "sdk-v2-acceptance", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

describe.each([
  ["auto", "auto" as const],
  ["pinned 2026-07-28", { pin: "2026-07-28" }],
])("SDK v2 client, versionNegotiation %s", (_label, mode) => {
  it("negotiates the modern era, lists the tenant's tools and calls one synchronously", async () => {
    const client = await connect(mode);
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const listed = await client.listTools();
      // The v2 client declares no tasks extension: the companion tools of task handles follow the tenant's.
      expect(listed.tools.map((tool) => tool.name)).toEqual([
        "approve_expense",
        "durable_report",
        "runifold_task_status",
        "runifold_task_wait",
        "runifold_task_answer",
        "runifold_task_cancel",
        "runifold_task_list",
      ]);
      // Without the extension an optional tool answers synchronously.
      const result = await client.callTool({ name: "durable_report", arguments: { report_id: "v2", settle_ms: 0 } });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain("Report v2");
    } finally {
      await client.close();
    }
  });
});
