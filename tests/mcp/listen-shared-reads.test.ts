import { cancelRunAsAdmin } from "@runifold/sdk";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { waitForRunStatus } from "../helpers/runs";

// Issue 36, listeners at scale: streams of one credential on one task share the re-read a NOTIFY
// causes (lib/tasks/shared-reads.ts), so a change costs one read of the task, not one per stream.
let db: Awaited<ReturnType<typeof freshDatabase>>;
let serverSql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
/** Task-record reads (lib/tasks/queries/task-record.ts) the server sent, per task ID. */
const reads = new Map<string, number>();

beforeAll(async () => {
  db = await freshDatabase();
  token = (await seedDemo(db.sql)).apiKey as string;
  serverSql = postgres(db.url, {
    max: 10,
    onnotice: () => {},
    debug: (_connection, query, parameters) => {
      const taskId = parameters[0];
      if (query.includes("FROM runs r WHERE r.id = $1 AND r.tenant_id = $2") && typeof taskId === "string")
        reads.set(taskId, (reads.get(taskId) ?? 0) + 1);
    },
  });
  server = await startMcpTestServer(serverSql);
});
afterAll(async () => {
  await server.close();
  await serverSql.end();
  await db.drop();
});

describe("subscriptions/listen, many streams on one task", () => {
  it("reads the task once per change for five streams of one credential, and every stream gets the change", async () => {
    const client = modernClient(server.url, { token });
    const created = await client.result("tools/call", {
      name: "durable_report",
      arguments: { report_id: "shared", settle_ms: 600_000 },
    });
    const taskId = created.taskId as string;
    await waitForRunStatus(db.sql, taskId, ["sleeping"]);
    const streams = await Promise.all(
      Array.from({ length: 5 }, () => client.stream("subscriptions/listen", { notifications: { taskIds: [taskId] } })),
    );
    for (const stream of streams) await stream.next((e) => e.method === "notifications/tasks" && e.params.status === "working");
    const before = reads.get(taskId) ?? 0;
    await cancelRunAsAdmin(db.sql, { runId: taskId, reason: "shared reads test" });
    for (const stream of streams) await stream.next((e) => e.method === "notifications/tasks" && e.params.status === "cancelled");
    await Promise.all(streams.map((stream) => stream.done));
    // One read for the NOTIFY shared by all five (a fallback poll due meanwhile shares it too).
    expect((reads.get(taskId) ?? 0) - before).toBe(1);
  });
});
