import { createRun } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summary } from "../../bench/lib/stats";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";
import { call } from "./mcp-client";
import { printCounts } from "./support";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let foreignId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await seedDemo(sql);
  const [mine] = await sql`SELECT id FROM tenants WHERE slug = 'conformance'`;
  const [theirs] = await sql`SELECT id FROM tenants WHERE slug = 'tenant-acme'`;
  token = (await createApiKey(sql, { tenantId: mine?.id, name: "prober" })).token;
  foreignId = (
    await createRun(sql, {
      tenantId: theirs?.id,
      workflowName: "generate-report",
      workflowVersion: 1,
      input: { report_id: "theirs" },
    })
  ).id;
  server = await startMcpTestServer(sql, { worker: false });
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("cross-tenant probes", () => {
  it("answers a foreign task ID exactly like an unknown one (status and body), over 200 trials, and reports the timing", {
    timeout: 120_000,
  }, async () => {
    const trials = 200;
    const methods: [string, (id: string) => Record<string, unknown>][] = [
      ["tasks/get", (taskId) => ({ taskId })],
      ["tasks/cancel", (taskId) => ({ taskId })],
      ["tasks/update", (taskId) => ({ taskId, inputResponses: { confirm: { action: "accept", content: { ok: true } } } })],
    ];
    const times = { unknown: [] as number[], foreign: [] as number[] };
    const mismatches: string[] = [];
    let status5xx = 0;
    for (let i = 0; i < 10; i++) await call(server.url, "tasks/get", { taskId: foreignId }, token); // warm-up
    for (let trial = 0; trial < trials; trial++) {
      const [method, params] = methods[trial % methods.length] as (typeof methods)[number];
      const unknownId = crypto.randomUUID();
      const order = Math.random() < 0.5 ? (["unknown", "foreign"] as const) : (["foreign", "unknown"] as const);
      const answers: Record<string, { status: number; body: string }> = {};
      for (const kind of order) {
        const id = kind === "unknown" ? unknownId : foreignId;
        const t0 = performance.now();
        const answer = await call(server.url, method, params(id), token);
        times[kind].push(performance.now() - t0);
        if (answer.status >= 500) status5xx++;
        answers[kind] = { status: answer.status, body: answer.body.replaceAll(id, "<id>") };
      }
      if (JSON.stringify(answers.unknown) !== JSON.stringify(answers.foreign)) {
        mismatches.push(`${method}: unknown ${JSON.stringify(answers.unknown)} vs foreign ${JSON.stringify(answers.foreign)}`);
      }
    }
    const unknown = summary(times.unknown);
    const foreign = summary(times.foreign);
    const [theirs] = await sql`SELECT status, cancel_requested_at FROM runs WHERE id = ${foreignId}`;
    printCounts("cross-tenant probes", {
      trials,
      mismatches: mismatches.length,
      "5xx": status5xx,
      unknownP50ms: unknown.p50,
      foreignP50ms: foreign.p50,
      unknownP95ms: unknown.p95,
      foreignP95ms: foreign.p95,
      foreignStatusAfter: String(theirs?.status),
    });
    expect(mismatches).toEqual([]);
    expect(status5xx).toBe(0);
    expect(theirs?.status).toBe("queued"); // 70 cancels and updates later, untouched
    expect(theirs?.cancel_requested_at).toBeNull();
  });
});
