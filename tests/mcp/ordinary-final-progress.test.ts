import { describeDefinition, publishDefinitions, sendSignalForTenant } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { definitionsFromStore, SEED_ACTOR, saveRoute } from "../../lib/admin";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { connectLegacyClient } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { finalProgress } from "./support/final-progress-workflow";

/**
 * A value a run reports just before it ends still reaches an ordinary (task-less) call's stream,
 * before the response: 2025-11-25 progress.mdx stops notifications only once the request completed.
 * The stream used to answer as soon as a read showed the run ended, so a last report committed just
 * before the end was dropped whenever one read saw both (the conformance suite's
 * tools-call-with-progress got 2 of its 3 reports on a loaded CI machine). Here the read is made to
 * see both: the web handler runs in this process, which is held busy while a worker in another
 * process finishes the run.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  await publishDefinitions(sql, [describeDefinition(finalProgress)], "test");
  tenantId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  await saveRoute(
    { sql, actor: SEED_ACTOR, resolveDefinition: definitionsFromStore(sql) },
    { tenantId, toolName: "final_progress", workflowName: "test-final-progress", workflowVersion: 1, syncDeadlineMs: 120_000 },
  );
  server = await startMcpTestServer(sql, { worker: false });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe("the last progress before an ordinary call's answer", () => {
  it("reaches the legacy stream before the result when one read sees the report and the end", { timeout: 120_000 }, async () => {
    const worker = spawnTs("tests/mcp/support/final-progress-worker-process.ts", {
      DATABASE_URL: db.url,
      RUNIFOLD_POLL_MS: "100",
      RUNIFOLD_LOG_LEVEL: "error",
    });
    // A client that can be asked (form elicitation): its call is answered on the inline stream
    // (legacy/ordinary-stream.ts), where questions and progress go out together.
    const legacy = await connectLegacyClient(server.url, token, { capabilities: { elicitation: { form: {} } } });
    try {
      const values: number[] = [];
      const call = legacy.client.callTool({ name: "final_progress", arguments: {} }, undefined, {
        timeout: 100_000,
        onprogress: (progress) => values.push(progress.progress),
      });
      await waitFor(
        () => values.length,
        (n) => n === 1,
        { describe: "the first report on the stream", timeoutMs: 60_000 },
      );
      const [run] = await sql<{ id: string }[]>`SELECT id FROM runs WHERE workflow_name = 'test-final-progress'`;
      await waitFor(
        async () => (await sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ${run?.id ?? ""}`)[0]?.status,
        (status) => status === "waiting_signal",
        { describe: "the run to park for its signal" },
      );
      expect(await sendSignalForTenant(sql, { tenantId, runId: run?.id ?? "", name: "go" })).toBe(true);
      // Busy, not asleep: nothing in this process (the web handler's reads included) runs until the
      // worker has reported 2 of 2 and ended the run.
      const busyUntil = Date.now() + 4_000;
      while (Date.now() < busyUntil) {}
      const result = await call;
      expect(result).toMatchObject({ content: [{ type: "text", text: "done" }] });
      const [ended] = await sql<
        { status: string; progress: unknown }[]
      >`SELECT status, progress FROM runs WHERE id = ${run?.id ?? ""}`;
      expect(ended).toMatchObject({ status: "completed", progress: { progress: 2, total: 2 } });
      expect(values).toEqual([1, 2]);
    } finally {
      await legacy.close();
      worker.kill("SIGTERM");
      await waitForExit(worker);
    }
  });
});
