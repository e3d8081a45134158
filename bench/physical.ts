// (6) The physical limit on this server: single-row durable commits/s (autocommit UPDATE and INSERT
// loops) from a given number of connections, and the engine's write transactions/s as a ratio of it.
import postgres from "postgres";
import type { BenchContext } from "./lib/context";
import { recreateDatabase } from "./lib/pg";
import { round } from "./lib/stats";
import type { ThroughputSummary } from "./throughput";

async function commitLoop(url: string, connections: number, seconds: number, kind: "update" | "insert"): Promise<number> {
  const sql = postgres(url, { max: connections, onnotice: () => {} });
  try {
    await Promise.all(Array.from({ length: connections }, (_, i) => sql`SELECT ${i}::int`)); // open every connection first
    let commits = 0;
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async (_, i) => {
        while (performance.now() < deadline) {
          if (kind === "update") await sql`UPDATE bench_commit SET n = n + 1 WHERE id = ${i}`;
          else await sql`INSERT INTO bench_insert (note) VALUES ('x')`;
          commits++;
        }
      }),
    );
    return round((commits * 1000) / (performance.now() - started), 1);
  } finally {
    await sql.end();
  }
}

export async function benchPhysical(ctx: BenchContext, throughput?: ThroughputSummary) {
  const seconds = ctx.quick ? 2 : 8;
  const url = await recreateDatabase(ctx.adminUrl, "bench_physical");
  const setup = postgres(url, { max: 1, onnotice: () => {} });
  await setup`CREATE TABLE bench_commit (id int PRIMARY KEY, n bigint NOT NULL DEFAULT 0)`;
  await setup`INSERT INTO bench_commit (id) SELECT generate_series(0, 255)`;
  await setup`CREATE TABLE bench_insert (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), note text)`;
  await setup.end();
  // The engine's connections in the 2-worker run: 2 × (worker pool − its LISTEN connection) + producers.
  const engineConnections = throughput?.connections2 ?? 2 * (Math.min(ctx.concurrency, 8) + 1) + ctx.producers;
  const results: Record<string, number> = {};
  for (const connections of [...new Set([1, 8, engineConnections])]) {
    results[`update_${connections}`] = await commitLoop(url, connections, seconds, "update");
    ctx.report.figure(
      `physical.single_row_update_commits.conns_${connections}`,
      results[`update_${connections}`] as number,
      "commits/s",
    );
    results[`insert_${connections}`] = await commitLoop(url, connections, seconds, "insert");
    ctx.report.figure(
      `physical.single_row_insert_commits.conns_${connections}`,
      results[`insert_${connections}`] as number,
      "commits/s",
    );
  }
  if (throughput) {
    const transitions = round(throughput.runifold2PerSecond * throughput.transitionsPerRun, 1);
    ctx.report.figure("physical.runifold_transitions_per_s.workers_2", transitions, "transitions/s", {
      note: `${throughput.transitionsPerRun} state transitions per one-step run (create, claim, checkpoint, finish); measured ${throughput.commitsPerRun2} commits/run`,
    });
    const limit = Math.max(results[`update_${engineConnections}`] ?? 0, results[`insert_${engineConnections}`] ?? 0);
    ctx.report.goal(
      "ratio.runifold_transitions_vs_single_row_commits",
      round(transitions / limit, 2),
      `same ${engineConnections} connections; limit ${limit} commits/s (best of UPDATE and INSERT)`,
    );
  }
  ctx.report.attach("physical", { seconds, engineConnections, results });
}
