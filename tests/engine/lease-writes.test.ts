import { claimRuns, renewLease, reportProgress } from "@runifold/sdk/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";

/**
 * The writes a live run makes every few seconds — lease renewals and progress — change no indexed
 * column of `runs`, so they are HOT updates: one new row version on the same page, no index entry,
 * whatever the run's input holds (review 3, E11: a renewal moved `claimable_at`, which two claim
 * indexes held, so every index of `runs` got an entry, the GIN over the input one per JSON path:
 * 1.3 KB of WAL a renewal with an empty input, 4.6 KB with a 200-field one). WAL is read per
 * statement (EXPLAIN's WAL counts, full-page images left out: they depend on when the last
 * checkpoint was, not on the statement), so other tests writing to the same server do not count.
 */
const WORKER = "lease-writes";
const RUNS = 40;

let db: Awaited<ReturnType<typeof freshDatabase>>;
let one: postgres.Sql;
type Leased = { runId: string; workerId: string; attempt: number; leaseMs: number };
const leases: Record<"empty" | "wide", Leased[]> = { empty: [], wide: [] };

/** A 200-field input, about 4.6 KB of JSON: what a real form or an agent's tool arguments look like. */
const wideInput = Object.fromEntries(Array.from({ length: 200 }, (_, n) => [`field_${n}`, `value of field number ${n}`]));

beforeAll(async () => {
  db = await freshDatabase();
  one = postgres(db.url, { max: 1, onnotice: () => {} });
  // What this test pins is that the writes change no indexed column. A HOT update also needs room
  // on its page, which pruning makes: a live worker's writes come seconds apart and find it, but
  // this burst does not when another session holds back the prune horizon (beside other test files
  // it made 40 of 80 HOT, the page full, though no index changed). Room of its own for each row's new
  // versions (this database is the test's; the app's runs keep fillfactor 80) leaves the count to
  // the indexes alone.
  await db.sql`ALTER TABLE runs SET (fillfactor = 10)`;
  const [tenant] = await db.sql<{ id: string }[]>`INSERT INTO tenants (slug, name) VALUES ('leases', 'Leases') RETURNING id`;
  for (const [kind, input] of [
    ["empty", {}],
    ["wide", wideInput],
  ] as const) {
    await db.sql`
      INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, checkpoints, claimable_at)
      SELECT gen_random_uuid(), ${tenant?.id as string}, ${kind}, 1, ${`${kind}@1`}, 'queued', ${db.sql.json(input)}, 'engine', 0, now()
      FROM generate_series(1, ${RUNS})`;
    const claimed = await claimRuns(db.sql, { workerId: WORKER, workflowKeys: [`${kind}@1`], limit: RUNS, leaseMs: 60_000 });
    leases[kind] = claimed.map((run) => ({ runId: run.id, workerId: WORKER, attempt: run.attempt, leaseMs: 60_000 }));
  }
  // The claims left a dead version of every row. A live worker's first renewal comes seconds later,
  // when on-access pruning has long removed them; on a busy CI host that pruning may not have run
  // yet, and a page without room makes an update non-HOT for want of space, not of an index.
  await db.sql`VACUUM runs`;
});

afterAll(async () => {
  await one?.end();
  await db?.drop();
});

/** Updates of `runs` so far, and how many of them were HOT, as the statistics collector counts them. */
async function runsUpdates(): Promise<{ updated: number; hot: number }> {
  await one`SELECT pg_stat_force_next_flush()`;
  await one`SELECT 1`; // the statement before this one's end flushed this connection's counts
  const [row] = await one<{ updated: number; hot: number }[]>`
    SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'runs'`;
  return row ?? { updated: 0, hot: 0 };
}

/** Median WAL bytes of one execution of `statement` per lease (EXPLAIN ANALYZE, WAL), full-page images excluded. */
async function walPerStatement(statement: string, kind: "empty" | "wide"): Promise<number> {
  const bytes: number[] = [];
  for (const lease of leases[kind]) {
    const [row] = await one.unsafe<{ "QUERY PLAN": [{ Plan: { "WAL Bytes": number; "WAL FPI": number } }] }[]>(
      `EXPLAIN (ANALYZE, WAL, FORMAT JSON) ${statement}`,
      [lease.runId, lease.workerId, lease.attempt, lease.leaseMs],
    );
    const plan = row?.["QUERY PLAN"][0].Plan;
    if (plan && plan["WAL FPI"] === 0) bytes.push(plan["WAL Bytes"]);
  }
  bytes.sort((a, b) => a - b);
  return bytes[Math.floor(bytes.length / 2)] ?? Number.NaN;
}

/** renewLease's statement, as the lease pool prepares it. */
async function renewalStatement(): Promise<string> {
  await renewLease(one, leases.empty[0] as Leased);
  const [prepared] = await one<{ statement: string }[]>`
    SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'UPDATE runs SET lease_expires_at%'`;
  if (!prepared) throw new Error("renewLease was not prepared");
  return prepared.statement;
}

/** What a renewal was before (review 3, E11): it moved claimable_at with the expiry. */
const OLD_RENEWAL = `UPDATE runs SET lease_expires_at = now() + make_interval(secs => $4 / 1000.0),
  claimable_at = now() + make_interval(secs => $4 / 1000.0)
  WHERE id = $1 AND status = 'leased' AND lease_owner = $2 AND attempt = $3 RETURNING id`;

describe("the per-second writes of a live run", () => {
  it("renew leases and report progress as HOT updates, whatever the input holds", async () => {
    for (const kind of ["empty", "wide"] as const) {
      const before = await runsUpdates();
      // Each in its own transaction, seconds apart in a real worker: the page's earlier versions are
      // dead by the next write, so Postgres prunes them and the new version fits on the same page.
      for (const lease of leases[kind]) {
        expect(await renewLease(one, lease)).toBe(true);
        expect(await reportProgress(one, lease, { progress: 1, total: 2, message: "half way" })).toBe(true);
      }
      const after = await runsUpdates();
      const updated = after.updated - before.updated;
      const hot = after.hot - before.hot;
      expect(updated, kind).toBe(2 * RUNS);
      // A write that changes an indexed column is never HOT (review 3, E11 made 0 of 80 HOT), room or
      // not. Either statement doing so caps the count at RUNS of the 2 × RUNS updates; with the room
      // given above all of them are HOT, and a stray page accident costs a few, never half.
      expect(hot, `${kind}: ${hot} of ${updated} HOT`).toBeGreaterThan(RUNS);
    }
  });

  it("write WAL that does not grow with the input", async () => {
    const renewal = await renewalStatement();
    const empty = await walPerStatement(renewal, "empty");
    const wide = await walPerStatement(renewal, "wide");
    const oldEmpty = await walPerStatement(OLD_RENEWAL, "empty");
    const oldWide = await walPerStatement(OLD_RENEWAL, "wide");
    process.stdout.write(
      `[lease-writes] WAL per renewal: empty input ${empty} B, 200 fields ${wide} B; moving claimable_at as before: ${oldEmpty} B, ${oldWide} B\n`,
    );
    // What is left of the difference is not the input: a wide row fills its page sooner, so more of
    // its renewals also log the pruning of the page's dead versions (a record of about 60 bytes).
    expect(wide - empty).toBeLessThan(100);
    // The control: the old statement put an entry in every index, the GIN one per field of the input.
    expect(oldWide).toBeGreaterThan(2 * wide);
  });
});
