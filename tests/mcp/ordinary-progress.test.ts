import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import {
  createRegistry,
  createWorker,
  defineWorkflow,
  describeDefinition,
  publishDefinitions,
  silentLogger,
} from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { findTenantBySlug } from "../../db/queries/tenants";
import { definitionsFromStore, SEED_ACTOR, saveRoute } from "../../lib/admin";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { connectLegacyClient } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";

/**
 * Acceptance (issue 29 item 2): progress keeps an ordinary call alive. A tool call from a client
 * without tasks, carrying a progressToken, is answered as an SSE stream that carries the run's
 * progress as notifications/progress; a client that resets its request timeout on progress (SDK v1
 * and v2 `resetTimeoutOnProgress`) then waits past its own timeout, for as long as the route's sync
 * deadline allows (here 15 minutes, the documented maximum), and gets the result after 90 s.
 */
const TICKS = 10;
const TICK_MS = 9_500;
const CLIENT_TIMEOUT_MS = 30_000;

const ticking = defineWorkflow({
  name: "test-ticking",
  version: 1,
  description: "Works for about 95 s, reporting progress every 9.5 s.",
  input: z.object({ label: z.string() }),
  async run(ctx, input) {
    for (let i = 1; i <= TICKS; i++) {
      await ctx.sleep(`tick-${i}`, TICK_MS);
      await ctx.progress({ progress: i, total: TICKS, message: `Tick ${i} of ${TICKS}` });
    }
    return { content: [{ type: "text", text: `Done ${input.label} after ${TICKS} ticks` }] };
  },
});

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let worker: ReturnType<typeof createWorker>;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  await publishDefinitions(sql, [describeDefinition(ticking)], "test");
  const acme = await findTenantBySlug(sql, "tenant-acme");
  await saveRoute(
    { sql, actor: SEED_ACTOR, resolveDefinition: definitionsFromStore(sql) },
    {
      tenantId: acme?.id as string,
      toolName: "long_ticks",
      workflowName: "test-ticking",
      workflowVersion: 1,
      syncDeadlineMs: 900_000,
    },
  );
  server = await startMcpTestServer(sql);
  worker = createWorker({ sql, registry: createRegistry([ticking]), logger: silentLogger, pollMs: 200, leaseMs: 5_000 });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop(500);
  await server?.close();
  await db?.drop();
});

describe("progress keeps ordinary calls alive", () => {
  it("SDK v1 (2025-11-25) and SDK v2 (2026-07-28) wait past their 30 s timeout on progress and get the result after 90 s", {
    timeout: 240_000,
  }, async () => {
    const legacy = await connectLegacyClient(server.url, token);
    const modern = new ClientV2({ name: "progress-v2", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await modern.connect(
      new TransportV2(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      const seen: { v1: number[]; v2: number[] } = { v1: [], v2: [] };
      const started = Date.now();
      const [v1, v2] = await Promise.all([
        legacy.client.callTool({ name: "long_ticks", arguments: { label: "v1" } }, undefined, {
          timeout: CLIENT_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          onprogress: (progress) => seen.v1.push(progress.progress),
        }),
        modern.callTool(
          { name: "long_ticks", arguments: { label: "v2" } },
          {
            timeout: CLIENT_TIMEOUT_MS,
            resetTimeoutOnProgress: true,
            onprogress: (progress) => seen.v2.push(progress.progress),
          },
        ),
      ]);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThan(90_000);
      expect(v1).toMatchObject({ content: [{ type: "text", text: `Done v1 after ${TICKS} ticks` }] });
      expect(v1.isError).toBeFalsy();
      expect(v2).toMatchObject({ content: [{ type: "text", text: `Done v2 after ${TICKS} ticks` }] });
      // Rising values only, ending at the last tick (a notification is never repeated or lowered).
      for (const values of [seen.v1, seen.v2]) {
        expect(values.length).toBeGreaterThanOrEqual(TICKS - 1);
        expect(values).toEqual([...values].sort((a, b) => a - b));
        expect(new Set(values).size).toBe(values.length);
      }
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
