import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { modernClient } from "../helpers/modern-client";
import { readyUrl, spawnTs, waitForExit } from "../helpers/processes";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
});
afterAll(async () => {
  await db.drop();
});

async function startWeb(port = 0) {
  const web = spawnTs("tests/helpers/mcp-server-process.ts", { DATABASE_URL: db.url, PORT: String(port) });
  const url = await readyUrl(web);
  return { web, url };
}

describe("durability across a web process crash", () => {
  it("serves the same task and result from a fresh process after the first one is killed", async () => {
    const worker = spawnTs("workers/engine.ts", { DATABASE_URL: db.url, RUNIFOLD_POLL_MS: "200" });
    let first = await startWeb();
    try {
      const created = await modernClient(first.url, { token }).result("tools/call", {
        name: "durable_report",
        arguments: { report_id: "survivor", settle_ms: 1_500 },
      });
      first.web.kill("SIGKILL");
      await waitForExit(first.web);
      const port = Number(new URL(first.url).port);
      first = await startWeb(port);
      const client = modernClient(first.url, { token });
      const task = await client.waitFor(created.taskId, ["completed"], 30_000);
      expect(task.taskId).toBe(created.taskId);
      expect(task.createdAt).toBe(created.createdAt);
      expect(task.result.structuredContent.reportId).toBe("survivor");
      const again = await client.result("tasks/get", { taskId: created.taskId });
      expect(again.result).toEqual(task.result);
    } finally {
      first.web.kill("SIGTERM");
      worker.kill("SIGTERM");
      await Promise.all([waitForExit(first.web), waitForExit(worker)]);
    }
  });
});
