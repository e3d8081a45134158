import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";
import { spawnTs, waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { seedRuns } from "./seed-runs";

/** The cleaner's two entry points as real processes: the CLI command and the worker's timer. */
const HOUR = 3_600_000;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantId = (await sql`INSERT INTO tenants (slug, name, retention_ms) VALUES ('cli', 'CLI', ${HOUR}) RETURNING id`)[0]
    ?.id as string;
});
afterAll(async () => {
  await db?.drop();
});

/** `npm run cli -- …` as one real process. */
async function cli(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawnTs("cli/main.ts", { DATABASE_URL: db.url }, args);
  const code = await waitForExit(child, 30_000);
  return { code, output: child.output() };
}

const tombstones = async () => Number((await sql`SELECT count(*)::int AS n FROM tombstones`)[0]?.n);

describe("retention entry points", () => {
  it("runifold retention run: dry run, then a real pass, as JSON and as a sentence; retention runs lists them", async () => {
    await seedRuns(sql, { tenantId, count: 30, finishedAgoMs: 2 * HOUR });
    const dry = await cli(["retention", "run", "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.output.trim().split("\n").at(-1) as string)).toMatchObject({
      status: "completed",
      dryRun: true,
      purged: 30,
    });
    expect(await tombstones()).toBe(0);

    const real = await cli(["retention", "run", "--batch-size", "7"]);
    expect(real.code).toBe(0);
    expect(real.output).toMatch(
      /^Purged 30 runs \(60 events\) and 0 expired requestState nonces purged in 5 batches, \d+ ms, epoch \d+\.$/m,
    );
    expect(await tombstones()).toBe(30);

    const listed = await cli(["retention", "runs", "--json"]);
    expect(listed.code).toBe(0);
    const runs = JSON.parse(listed.output.trim().split("\n").at(-1) as string);
    expect(runs.slice(0, 2)).toMatchObject([
      { status: "completed", dryRun: false, purged: 30, batches: 5 },
      { status: "completed", dryRun: true, purged: 30, batches: 0 },
    ]);

    const bad = await cli(["retention", "run", "--batch-size", "0"]);
    expect(bad.code).toBe(4);
    expect(bad.output).toMatch(/--batch-size must be/);
  });

  it("a worker process purges on RUNIFOLD_RETENTION_INTERVAL_MS and still drains on SIGTERM", async () => {
    const ids = await seedRuns(sql, { tenantId, count: 12, finishedAgoMs: 2 * HOUR });
    const worker = spawnTs("tests/helpers/test-worker-process.ts", {
      DATABASE_URL: db.url,
      RUNIFOLD_RETENTION_INTERVAL_MS: "1000",
    });
    try {
      await waitFor(
        async () => Number((await sql`SELECT count(*)::int AS n FROM tombstones WHERE run_id = ANY(${ids}::uuid[])`)[0]?.n),
        (n) => n === 12,
        { describe: "the worker's pass to tombstone all 12 runs" },
      );
      // The batch commits the tombstones first; the pass records itself in retention_runs after it.
      const holders = await waitFor(
        () => sql`SELECT DISTINCT holder FROM retention_runs WHERE purged > 0 AND holder NOT LIKE 'cli:%'`,
        (rows) => rows.length > 0,
        { describe: "the worker's pass to be recorded in retention_runs" },
      );
      expect(holders).toHaveLength(1);
    } finally {
      worker.kill("SIGTERM");
    }
    expect(await waitForExit(worker)).toBe(0);
  });
});
