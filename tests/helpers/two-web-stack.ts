import type { Worker } from "@runifold/sdk";
import postgres from "postgres";
import { findActiveRoute, insertRouteRevision } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "./db";
import { startMcpTestServer, startShippedWorker } from "./mcp-server";

export type TwoWebStack = {
  db: Awaited<ReturnType<typeof freshDatabase>>;
  /** The demo key of tenant-acme. */
  token: string;
  tenantId: string;
  /** Two MCP servers on one database, as two web instances. */
  a: Awaited<ReturnType<typeof startMcpTestServer>>;
  b: Awaited<ReturnType<typeof startMcpTestServer>>;
  worker: Worker;
  /** The actor label answers with the demo key are recorded as. */
  actor: string;
  close(): Promise<void>;
};

/**
 * Two web instances and a worker on one fresh, demo-seeded database, each with its own pool as
 * separate processes would have, plus `approve_fast`: approve-expense@1 behind a route whose sync
 * deadline is `fastDeadlineMs`, for calls that answer "still running" quickly.
 */
export async function startTwoWebStack(options: { fastDeadlineMs: number }): Promise<TwoWebStack> {
  const db = await freshDatabase();
  const pools: postgres.Sql[] = [];
  const pool = () => {
    const sql = postgres(db.url, { max: 5, onnotice: () => {} });
    pools.push(sql);
    return sql;
  };
  const token = (await seedDemo(db.sql)).apiKey as string;
  const tenantId = (await findTenantBySlug(db.sql, "tenant-acme"))?.id as string;
  const approve = await findActiveRoute(db.sql, tenantId, "approve_expense");
  await insertRouteRevision(db.sql, {
    tenantId,
    toolName: "approve_fast",
    workflowName: "approve-expense",
    workflowVersion: 1,
    inputSchema: approve?.input_schema as Record<string, unknown>,
    taskSupport: "optional",
    syncDeadlineMs: options.fastDeadlineMs,
  });
  const worker = await startShippedWorker(pool());
  const a = await startMcpTestServer(pool(), { worker: false });
  const b = await startMcpTestServer(pool(), { worker: false });
  return {
    db,
    token,
    tenantId,
    a,
    b,
    worker,
    actor: `key:${/^rf_([0-9a-f]{16})_/.exec(token)?.[1]}`,
    async close() {
      await a.close();
      await b.close();
      await worker.stop(500);
      for (const sql of pools) await sql.end({ timeout: 2 });
      await db.drop();
    },
  };
}
