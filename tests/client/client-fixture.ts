import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";

export type ClientFixture = {
  db: Awaited<ReturnType<typeof freshDatabase>>;
  server: Awaited<ReturnType<typeof startMcpTestServer>>;
  /** A key of tenant-acme (durable_report, approve_expense). */
  acmeKey: string;
  /** A key of the conformance tenant (greet, slow_compute, failing_job, …). */
  conformanceKey: string;
  restartServer(): Promise<void>;
  close(): Promise<void>;
};

/** A fresh seeded database, a real HTTP MCP server with a worker around it, and keys for both demo tenants. */
export async function startClientFixture(): Promise<ClientFixture> {
  const db = await freshDatabase();
  const seeded = await seedDemo(db.sql);
  const conformance = await findTenantBySlug(db.sql, "conformance");
  const { token: conformanceKey } = await createApiKey(db.sql, { tenantId: conformance?.id as string, name: "client-tests" });
  const fixture: ClientFixture = {
    db,
    server: await startMcpTestServer(db.sql),
    acmeKey: seeded.apiKey as string,
    conformanceKey,
    async restartServer() {
      await fixture.server.close();
      fixture.server = await startMcpTestServer(db.sql);
    },
    async close() {
      await fixture.server.close();
      await db.drop();
    },
  };
  return fixture;
}
