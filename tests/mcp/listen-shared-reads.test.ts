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
/** Statements of the feed's batched probe of followed tasks (lib/tasks/followed-probe.ts). */
let probes = 0;

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
      if (query.includes("r.xmin::text")) probes++;
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
    // Past the feed's first probe of the task, which wakes its new subscribers once (followed-probe.ts).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const before = reads.get(taskId) ?? 0;
    await cancelRunAsAdmin(db.sql, { runId: taskId, reason: "shared reads test" });
    for (const stream of streams) await stream.next((e) => e.method === "notifications/tasks" && e.params.status === "cancelled");
    await Promise.all(streams.map((stream) => stream.done));
    // One read for the NOTIFY shared by all five.
    expect((reads.get(taskId) ?? 0) - before).toBe(1);
  });

  it("costs no re-read per idle stream: one probe statement per interval covers every followed task", async () => {
    const client = modernClient(server.url, { token });
    const taskIds: string[] = [];
    for (const n of [1, 2, 3]) {
      const created = await client.result("tools/call", {
        name: "durable_report",
        arguments: { report_id: `idle-${n}`, settle_ms: 600_000 },
      });
      taskIds.push(created.taskId as string);
    }
    for (const taskId of taskIds) await waitForRunStatus(db.sql, taskId, ["sleeping"]);
    const streams = await Promise.all(
      taskIds.flatMap((taskId) =>
        [1, 2].map(() => client.stream("subscriptions/listen", { notifications: { taskIds: [taskId] } })),
      ),
    );
    for (const stream of streams) await stream.next((e) => e.method === "notifications/tasks" && e.params.status === "working");
    // The first probe after a subscription wakes it once (a change between its first read and the
    // subscription is caught that way); after that, idle streams read nothing.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const readsBefore = taskIds.map((taskId) => reads.get(taskId) ?? 0);
    const probesBefore = probes;
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(taskIds.map((taskId) => reads.get(taskId) ?? 0)).toEqual(readsBefore);
    expect(probes - probesBefore).toBeGreaterThanOrEqual(1);
    expect(probes - probesBefore).toBeLessThanOrEqual(3);
    for (const taskId of taskIds) await cancelRunAsAdmin(db.sql, { runId: taskId, reason: "idle probe test" });
    await Promise.all(streams.map((stream) => stream.done));
  });

  it("still hears a change no notification announced: a handle expired by SQL ends the stream through the probe", async () => {
    const client = modernClient(server.url, { token });
    const created = await client.result("tools/call", {
      name: "durable_report",
      arguments: { report_id: "quiet", settle_ms: 600_000 },
    });
    const taskId = created.taskId as string;
    await waitForRunStatus(db.sql, taskId, ["sleeping"]);
    const stream = await client.stream("subscriptions/listen", { notifications: { taskIds: [taskId] } });
    await stream.next((e) => e.method === "notifications/tasks" && e.params.status === "working");
    // No NOTIFY: only the fallback can see it. An expired handle reads as unknown, so the stream stops
    // following the task and, with none left, ends with the listen result.
    await db.sql`UPDATE runs SET ttl_ms = 1 WHERE id = ${taskId}`;
    const final = await stream.next((e) => e.id !== undefined && e.result?.resultType === "complete", 8_000);
    expect(final.result.resultType).toBe("complete");
    await stream.done;
  });
});
