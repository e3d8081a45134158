import { rmSync } from "node:fs";
import path from "node:path";
import { migrate } from "@runifold/store";
import { type EmbeddedPostgres, portIsFree, startEmbeddedPostgres } from "@runifold/store/embedded";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../lib/auth";
import { sweepAbandonedClusters } from "../../scripts/lib/abandoned-clusters";
import { seedDemo } from "../../workflows/demo/seed";
import { withDatabase } from "../helpers/global-setup";
import { ROOT, readyUrl, spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { call, TERMINAL } from "./mcp-client";
import { printCounts, size } from "./support";

/**
 * Its own embedded Postgres (the shared test server cannot be restarted under other test files):
 * stopped and started again mid-load with the same data directory and port.
 */
describe("Postgres restart in the middle of a load", () => {
  it("loses no run, reports no status the store did not commit, and web and workers reconnect by themselves", {
    timeout: 240_000,
  }, async () => {
    // A cluster of this process's own: a fixed name would let two concurrent runs stop each other's server.
    const dataRoot = path.join(ROOT, ".data", "faults");
    const name = `faults-pg-${process.pid}`;
    await sweepAbandonedClusters(dataRoot, "faults-pg", () => {});
    let pg: EmbeddedPostgres = await startEmbeddedPostgres({ projectRoot: ROOT, name, dataRoot });
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    await admin.unsafe("DROP DATABASE IF EXISTS faults WITH (FORCE)");
    await admin.unsafe("CREATE DATABASE faults");
    await admin.end();
    const url = withDatabase(pg.url, "faults");
    const setup = postgres(url, { max: 2, onnotice: () => {} });
    await migrate(setup);
    await seedDemo(setup);
    const [tenant] = await setup`SELECT id FROM tenants WHERE slug = 'conformance'`;
    const { token } = await createApiKey(setup, { tenantId: tenant?.id, name: "faults" });
    await setup.end();

    const env = { DATABASE_URL: url, RUNIFOLD_LEASE_MS: "1500", RUNIFOLD_POLL_MS: "200", RUNIFOLD_LOG_LEVEL: "error" };
    const workers = [spawnTs("workers/engine.ts", env), spawnTs("workers/engine.ts", env)];
    const web = spawnTs("tests/helpers/mcp-server-process.ts", { DATABASE_URL: url });
    const counts = {
      runs: 0,
      lost: 0,
      notCompleted: 0,
      "5xx": 0,
      unavailable503: 0,
      connectionErrors: 0,
      phantomStatuses: 0,
      okAfterRestart: 0,
      createdAfterRestart: 0,
      maxRequestMs: 0,
    };
    try {
      const webUrl = await readyUrl(web);
      const accepted: string[] = [];
      const observations: { taskId: string; status: string; at: number }[] = [];
      let restartedAt = Number.POSITIVE_INFINITY;
      const statuses: Record<number, number> = {};
      // The load is counted, not timed: so many creates before the restart, and after it the same
      // clients carry on until so many creates and reads issued after the restart have succeeded
      // (that is "reconnected by themselves"); 60 s without that ends the load and fails below.
      const before = size(15, 100);
      const after = size(10, 200);
      const running = () =>
        restartedAt === Number.POSITIVE_INFINITY ||
        (Date.now() < restartedAt + 60_000 && (counts.okAfterRestart < after || counts.createdAfterRestart < after));
      const record = (status: number) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 0) counts.connectionErrors++;
        else if (status === 503) counts.unavailable503++;
        else if (status >= 500) counts["5xx"]++;
      };
      const creator = async () => {
        while (running()) {
          const t0 = Date.now();
          const answer = await call(webUrl, "tools/call", { name: "slow_compute", arguments: { seconds: 0.3 } }, token);
          record(answer.status);
          counts.maxRequestMs = Math.max(counts.maxRequestMs, Date.now() - t0);
          const taskId = answer.json?.result?.taskId;
          if (typeof taskId === "string") {
            accepted.push(taskId);
            if (t0 > restartedAt) counts.createdAfterRestart++;
          }
          await new Promise((r) => setTimeout(r, 40));
        }
      };
      const poller = async () => {
        while (running()) {
          const taskId = accepted[Math.floor(Math.random() * accepted.length)];
          if (taskId) {
            const t0 = Date.now();
            const answer = await call(webUrl, "tasks/get", { taskId }, token);
            counts.maxRequestMs = Math.max(counts.maxRequestMs, Date.now() - t0);
            record(answer.status);
            const status = answer.json?.result?.status;
            if (typeof status === "string") {
              observations.push({ taskId, status, at: Date.now() });
              if (t0 > restartedAt) counts.okAfterRestart++;
            }
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      const load = Promise.all([creator(), creator(), poller(), poller()]);
      await waitFor(
        () => accepted.length,
        (n) => n >= before,
        {
          describe: `${before} runs created before the restart`,
          timeoutMs: 60_000,
        },
      );
      const port = pg.port;
      const stopAt = Date.now();
      await pg.stop();
      await new Promise((r) => setTimeout(r, 1_000)); // a second with no database at all (the fault itself)
      // Web and workers keep the old URL, so the new postmaster needs the same port: wait until it is free.
      await waitFor(() => portIsFree(port), Boolean, { describe: `port ${port} to be released by the stopped Postgres` });
      pg = await startEmbeddedPostgres({ projectRoot: ROOT, name, dataRoot });
      if (process.env.FAULTS_DEBUG) process.stdout.write(`restart took ${Date.now() - stopAt} ms\n`);
      restartedAt = Date.now(); // the same clients carry on; nobody restarts web or workers
      expect(pg.port).toBe(port);
      await load;

      const sql = postgres(url, { max: 2, onnotice: () => {} });
      try {
        await waitFor(
          async () =>
            Number((await sql`SELECT count(*) AS n FROM runs WHERE status NOT IN ('completed', 'failed', 'cancelled')`)[0]?.n),
          (active) => active === 0,
          { describe: "every run to be terminal", timeoutMs: 60_000, everyMs: 200 },
        );
        const stored =
          await sql`SELECT r.id, r.status, (SELECT extract(epoch FROM min(e.at)) * 1000 FROM run_events e WHERE e.run_id = r.id AND e.type = r.status)::float8 AS terminal_at FROM runs r`;
        const byId = new Map(stored.map((r) => [r.id as string, r]));
        counts.runs = accepted.length;
        counts.lost = accepted.filter((id) => !byId.has(id)).length;
        counts.notCompleted = accepted.filter((id) => byId.get(id)?.status !== "completed").length;
        // A terminal status is only ever reported after its terminal event committed (50 ms clock slack).
        counts.phantomStatuses = observations.filter((o) => {
          const row = byId.get(o.taskId);
          if (!row) return true;
          if (!TERMINAL.has(o.status)) return false;
          return o.status !== row.status || Number(row.terminal_at) > o.at + 50;
        }).length;
      } finally {
        await sql.end();
      }
      printCounts("postgres restart", { ...counts, statuses: JSON.stringify(statuses) });
      if (process.env.FAULTS_DEBUG) {
        const dbg = postgres(url, { max: 1, onnotice: () => {} });
        const odd =
          await dbg`SELECT r.id, r.status, r.status_message, (SELECT json_agg(json_build_object('t', e.type, 'p', e.payload, 'at', e.at) ORDER BY e.id) FROM run_events e WHERE e.run_id = r.id) AS ev FROM runs r WHERE r.status <> 'completed'`;
        process.stdout.write(`${JSON.stringify(odd, null, 1)}\n${workers.map((w) => w.output()).join("\n")}\n${web.output()}\n`);
        await dbg.end();
      }
      expect(counts.runs).toBeGreaterThan(20);
      expect(counts.lost).toBe(0);
      expect(counts.notCompleted).toBe(0);
      expect(counts["5xx"]).toBe(0);
      expect(counts.phantomStatuses).toBe(0);
      expect(counts.okAfterRestart).toBeGreaterThan(0); // the web process reconnected
      expect(counts.createdAfterRestart).toBeGreaterThan(0); // and runs created afterwards completed: workers too
    } finally {
      web.kill("SIGTERM");
      for (const w of workers) w.kill("SIGTERM");
      await Promise.all([web, ...workers].map((c) => waitForExit(c).catch(() => c.kill("SIGKILL"))));
      await pg.stop();
      rmSync(pg.dataDir, { recursive: true, force: true });
      for (const suffix of ["embedded.json", "password", "log"])
        rmSync(path.join(dataRoot, `${name}.${suffix}`), { force: true });
    }
  });
});
