import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { readyUrl, spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { call, listen, TERMINAL } from "./mcp-client";
import { printCounts, size } from "./support";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await seedDemo(sql);
  const [tenant] = await sql`SELECT id FROM tenants WHERE slug = 'conformance'`;
  token = (await createApiKey(sql, { tenantId: tenant?.id, name: "faults" })).token;
});
afterAll(async () => {
  await db.drop();
});

async function startWeb(port = 0) {
  const web = spawnTs("tests/helpers/mcp-server-process.ts", { DATABASE_URL: db.url, PORT: String(port) });
  const url = await readyUrl(web);
  return { web, url };
}

describe("web process restart while clients poll and listen", () => {
  it("lets every client resume by task ID and see each task complete, with no 5xx", { timeout: 180_000 }, async () => {
    const tasks = size(8, 30);
    const worker = spawnTs("workers/engine.ts", { DATABASE_URL: db.url, RUNIFOLD_POLL_MS: "200", RUNIFOLD_LOG_LEVEL: "error" });
    let current = await startWeb();
    const url = current.url;
    const counts = { tasks, lost: 0, "5xx": 0, connectionErrors: 0, regressions: 0, listenReconnects: 0, restarts: 0 };
    try {
      const ids: string[] = [];
      for (let i = 0; i < tasks; i++) {
        const created = await call(url, "tools/call", { name: "slow_compute", arguments: { seconds: 2, label: `t${i}` } }, token);
        expect(created.status).toBe(200);
        ids.push(created.json?.result?.taskId as string);
      }
      const polled = new Map<string, string>();
      const heard = new Map<string, string>();
      const observe = (seen: Map<string, string>, taskId: string, status: string) => {
        if (TERMINAL.has(seen.get(taskId) ?? "") && seen.get(taskId) !== status) counts.regressions++;
        seen.set(taskId, status);
      };
      const deadline = Date.now() + 60_000;
      const poller = async (taskId: string) => {
        while (!TERMINAL.has(polled.get(taskId) ?? "") && Date.now() < deadline) {
          const answer = await call(url, "tasks/get", { taskId }, token);
          if (answer.status === 0) counts.connectionErrors++;
          else if (answer.status >= 500) counts["5xx"]++;
          else if (answer.json?.result?.status) observe(polled, taskId, answer.json.result.status as string);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const listener = async () => {
        while (ids.some((id) => !TERMINAL.has(heard.get(id) ?? "")) && Date.now() < deadline) {
          const open = ids.filter((id) => !TERMINAL.has(heard.get(id) ?? ""));
          const end = await listen(url, open, token, (task) => observe(heard, task.taskId, task.status));
          if (end === "broken" || open.some((id) => !TERMINAL.has(heard.get(id) ?? ""))) {
            counts.listenReconnects++;
            await new Promise((r) => setTimeout(r, 200));
          }
        }
      };
      const clients = Promise.all([...ids.map(poller), listener()]);
      // The crash comes once every client is actually following its tasks through this process.
      await waitFor(
        () => ({ polled: polled.size, heard: heard.size }),
        (seen) => seen.polled === ids.length && seen.heard > 0,
        { describe: "every poller and the listener to have heard from the first web process" },
      );
      const port = Number(new URL(url).port);
      current.web.kill("SIGKILL");
      await waitForExit(current.web);
      counts.restarts++;
      await new Promise((r) => setTimeout(r, 300)); // a moment with no web process at all (the fault itself)
      current = await startWeb(port);
      await clients;
      const stored = await sql`SELECT id, status FROM runs WHERE id IN ${sql(ids)}`;
      counts.lost = ids.length - stored.filter((r) => r.status === "completed").length;
      const missedByPollers = ids.filter((id) => polled.get(id) !== "completed").length;
      const missedByListener = ids.filter((id) => heard.get(id) !== "completed").length;
      printCounts("web restart", { ...counts, missedByPollers, missedByListener });
      expect(counts.lost).toBe(0);
      expect(counts["5xx"]).toBe(0);
      expect(counts.regressions).toBe(0);
      expect(missedByPollers).toBe(0);
      expect(missedByListener).toBe(0);
    } finally {
      current.web.kill("SIGTERM");
      worker.kill("SIGTERM");
      await Promise.all([waitForExit(current.web), waitForExit(worker)]);
    }
  });
});
