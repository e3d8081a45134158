import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { legacyRaw } from "../helpers/legacy-client";
import { startMcpTestServer } from "../helpers/mcp-server";
import { waitForRunStatus, wakeSleepingRun } from "../helpers/runs";
import { readSse } from "../helpers/sse";

/**
 * 2025-11-25 basic/utilities/progress.mdx: "The progress value MUST increase with each
 * notification", and tasks.mdx: the progressToken stays valid for the task's whole lifetime — one
 * sequence across every tasks/result stream the client opens for the task. The engine does not
 * replay progress (packages/sdk/src/context.ts reportBestEffort skips `history.replaying`), but a
 * workflow may still report less than before, and a re-opened stream used to start its own
 * sequence from the stored value; the store's high-water mark (mcp_progress_marks) now continues it.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let token: string;
let a: Awaited<ReturnType<typeof startMcpTestServer>>;
let b: Awaited<ReturnType<typeof startMcpTestServer>>;
const pools: postgres.Sql[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  token = (await seedDemo(db.sql)).apiKey as string;
  const pool = () => {
    const sql = postgres(db.url, { max: 5, onnotice: () => {} });
    pools.push(sql);
    return sql;
  };
  a = await startMcpTestServer(pool());
  b = await startMcpTestServer(pool(), { worker: false });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  for (const sql of pools) await sql.end({ timeout: 2 });
  await db?.drop();
});

function taskResult(url: string, taskId: string, id: number, signal?: AbortSignal) {
  return fetch(url, {
    method: "POST",
    signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tasks/result", params: { taskId } }),
  }).then(readSse);
}

describe("legacy progress across re-opened tasks/result streams", () => {
  it("a re-opened stream (on another instance) never repeats or lowers the progress already sent", async () => {
    const created = await legacyRaw(a.url, token).request("tools/call", {
      name: "durable_report",
      arguments: { report_id: "reopen", sections: 3, settle_ms: 600_000 },
      task: {},
      _meta: { progressToken: "tok-reopen" },
    });
    const taskId = created.body.result.task.taskId as string;
    await waitForRunStatus(db.sql, taskId, "sleeping");

    const controller = new AbortController();
    const first = await taskResult(a.url, taskId, 1, controller.signal);
    const sent = await first.next((event) => event.method === "notifications/progress");
    expect(sent.params).toMatchObject({ progressToken: "tok-reopen", progress: 3 });
    controller.abort();
    await first.done.catch(() => {});

    // What a workflow reporting less than before leaves in the store (the engine does not forbid it).
    await db.sql`UPDATE runs SET progress = '{"progress": 2, "total": 4}'::jsonb WHERE id = ${taskId}`;
    await db.sql`SELECT pg_notify('runifold_task', ${taskId})`;
    const second = await taskResult(b.url, taskId, 2);
    // A value above the 3 sent before goes out on the re-opened stream. Raised here while the run
    // sleeps, not left to the workflow's own "Rendered" 4/4: that one commits just before the run
    // completes, and a round that sees only the completed task sends no progress (never after the
    // terminal state), so which of the two a loaded machine shows would decide the test.
    await db.sql`UPDATE runs SET progress = '{"progress": 4, "total": 4}'::jsonb WHERE id = ${taskId}`;
    await db.sql`SELECT pg_notify('runifold_task', ${taskId})`;
    const raised = await second.next((event) => event.method === "notifications/progress");
    expect(raised.params).toMatchObject({ progressToken: "tok-reopen", progress: 4 });
    await wakeSleepingRun(db.sql, taskId);
    await second.done;
    expect(second.events.at(-1)).toMatchObject({ id: 2, result: { structuredContent: { reportId: "reopen" } } });
    const values = second.events
      .filter((event) => event.method === "notifications/progress")
      .map((event) => event.params.progress);
    // Only the value that rose above the 3 sent before, nothing repeated or lower (the stored 2, the
    // workflow's own 4/4 again).
    expect(values).toEqual([4]);
  });
});
