import {
  createRegistry,
  createRun,
  createWorker,
  defineWorkflow,
  type RunStatus,
  silentLogger,
  type Worker,
} from "@runifold/sdk";
import { z } from "zod";
import { createSignalHandler } from "../../lib/http-api";
import { readTaskRecord } from "../../lib/tasks";
import { freshDatabase } from "../helpers/db";
import { createSignalTenants, type SignalTenants, startSignalServer } from "../helpers/signal-server";

/** Waits for the signal "approved" and returns its payload: the smallest workflow a signal finishes. */
export const awaitApproval = defineWorkflow({
  name: "await-approval",
  version: 1,
  title: "Await approval",
  description: "Completes with the payload of the first 'approved' signal",
  input: z.object({}),
  async run(ctx) {
    const signal = await ctx.waitForSignal<unknown>("approved");
    const payload = signal.received ? signal.payload : "timed out";
    return { content: [{ type: "text", text: JSON.stringify(payload) }], structuredContent: { payload } };
  },
});

export type SignalFixture = SignalTenants & {
  db: Awaited<ReturnType<typeof freshDatabase>>;
  /** http://127.0.0.1:<port> */
  origin: string;
  signalUrl(taskId: string, name: string): string;
  /** A run of await-approval for a tenant, parked in waiting_signal unless `park: false`. */
  startRun(tenantId: string, options?: { park?: boolean; ttlMs?: number }): Promise<string>;
  waitForStatus(taskId: string, tenantId: string, statuses: RunStatus[]): Promise<RunStatus>;
  /** The completed run's payload (structuredContent.payload). */
  resultPayload(taskId: string, tenantId: string): Promise<unknown>;
  signalCount(taskId: string): Promise<number>;
  close(): Promise<void>;
};

/**
 * A fresh database with two tenants, a worker serving await-approval, and a real HTTP server around
 * the same createSignalHandler that app/api/v1/tasks/[id]/signals/[name]/route.ts binds
 * (tests/helpers/signal-server.ts: the body streamed, not buffered, as Next hands it over).
 */
export async function startSignalFixture(): Promise<SignalFixture> {
  const db = await freshDatabase();
  const { sql } = db;
  const tenants = await createSignalTenants(sql, "signal");
  const server = await startSignalServer(createSignalHandler({ sql: () => sql, logger: silentLogger }));
  const origin = server.origin;

  const worker: Worker = createWorker({
    sql,
    registry: createRegistry([awaitApproval]),
    logger: silentLogger,
    pollMs: 100,
    leaseMs: 5_000,
  });
  await worker.start();

  const waitForStatus = async (taskId: string, tenantId: string, statuses: RunStatus[]) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const status = (await readTaskRecord(sql, { tenantId, taskId }))?.status;
      if (status && statuses.includes(status)) return status;
      if (Date.now() > deadline) throw new Error(`task ${taskId} is ${status}, not ${statuses.join("|")}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  return {
    db,
    origin,
    ...tenants,
    signalUrl: (taskId, name) => `${origin}/api/v1/tasks/${encodeURIComponent(taskId)}/signals/${encodeURIComponent(name)}`,
    async startRun(tenantId, options = {}) {
      const run = await createRun(sql, {
        tenantId,
        workflowName: awaitApproval.name,
        workflowVersion: awaitApproval.version,
        input: {},
        origin: "engine",
        ttlMs: options.ttlMs ?? null,
      });
      if (options.park !== false) await waitForStatus(run.id, tenantId, ["waiting_signal"]);
      return run.id;
    },
    waitForStatus,
    async resultPayload(taskId, tenantId) {
      const record = await readTaskRecord(sql, { tenantId, taskId });
      return record?.terminal?.result?.structuredContent?.payload;
    },
    async signalCount(taskId) {
      return Number((await sql`SELECT count(*)::int AS n FROM run_signals WHERE run_id = ${taskId}`)[0]?.n);
    },
    async close() {
      await server.close();
      await worker.stop(500);
      await db.drop();
    },
  };
}
