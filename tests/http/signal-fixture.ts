import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
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
import { createTenant } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { createSignalHandler } from "../../lib/http-api";
import { readTaskRecord } from "../../lib/tasks";
import { freshDatabase } from "../helpers/db";

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

const ROUTE = /^\/api\/v1\/tasks\/([^/]+)\/signals\/([^/]+)$/;
// Hop-by-hop framing stays with Node's server; the Request gets the body as a stream.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding"]);

export type SignalFixture = {
  db: Awaited<ReturnType<typeof freshDatabase>>;
  /** http://127.0.0.1:<port> */
  origin: string;
  tenantA: string;
  tenantB: string;
  /** Keys of tenant A: all scopes, and one without tasks:write. Key of tenant B: all scopes. */
  keyA: string;
  readOnlyKeyA: string;
  keyB: string;
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
 * the same createSignalHandler that app/api/v1/tasks/[id]/signals/[name]/route.ts binds, with the
 * body streamed (not buffered), as Next hands it over.
 */
export async function startSignalFixture(): Promise<SignalFixture> {
  const db = await freshDatabase();
  const { sql } = db;
  const a = await createTenant(sql, { slug: "signal-a", name: "Signal A" });
  const b = await createTenant(sql, { slug: "signal-b", name: "Signal B" });
  const keyA = (await createApiKey(sql, { tenantId: a.id, name: "full" })).token;
  const readOnlyKeyA = (await createApiKey(sql, { tenantId: a.id, name: "read", scopes: ["mcp", "tasks:read"] })).token;
  const keyB = (await createApiKey(sql, { tenantId: b.id, name: "full" })).token;

  const handleSignal = createSignalHandler({ sql: () => sql, logger: silentLogger });
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const match = ROUTE.exec(url.pathname);
    if (!match || req.method !== "POST") {
      res.writeHead(404).end();
      return;
    }
    let params: { id: string; name: string };
    try {
      params = { id: decodeURIComponent(match[1] as string), name: decodeURIComponent(match[2] as string) };
    } catch {
      res.writeHead(400).end();
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const request = new Request(url, {
      method: "POST",
      headers,
      body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
      duplex: "half",
    } as RequestInit);
    const response = await handleSignal(request, params);
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

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
    tenantA: a.id,
    tenantB: b.id,
    keyA,
    readOnlyKeyA,
    keyB,
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
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker.stop(500);
      await db.drop();
    },
  };
}
