// (5) Scale: the UI's task list query (lib/tasks/queries/operator-task-list.ts listTaskPage, the statement
// behind app/(ui)/tasks) and the tasks/get read (readTaskRecord) with 10M stored tasks (100k quick) seeded
// in bulk by generate_series and kept between runs: p50/p99 per page shape, EXPLAIN (ANALYZE, BUFFERS) of
// each to show which index serves it, and the disk the runs take per million.

import { migrate } from "@runifold/store";
import postgres from "postgres";
import { listTaskPage, readTaskRecord, type TaskListFilters } from "../lib/tasks";
import { seedDemo } from "../workflows/demo/seed";
import type { BenchContext } from "./lib/context";
import { databaseExists, recreateDatabase, withDatabase } from "./lib/pg";
import { round, summary } from "./lib/stats";

const PAGE = 25 + 1; // TASK_PAGE_SIZE + 1, as lib/ui/presenters/task-list.ts asks

const BATCH = 1_000_000;

/** Creates the schema and the seed's tenants; rows come from topUp. */
async function prepare(sql: postgres.Sql) {
  await migrate(sql);
  await seedDemo(sql);
  await sql`INSERT INTO tenants (slug, name) VALUES ('bench-t3', 'Bench 3'), ('bench-t4', 'Bench 4')`;
  await sql`CREATE TABLE bench_meta (rows int)`;
  await sql`INSERT INTO bench_meta VALUES (0)`;
}

/**
 * Adds runs g = have+1 … total, one INSERT … SELECT generate_series per million, recording progress in
 * bench_meta after each so an interrupted seed resumes where it stopped. created_at depends on g and the
 * fixed target only, so a resumed seed yields the same table as one pass.
 */
async function topUp(sql: postgres.Sql, have: number, total: number, log: (l: string) => void) {
  const started = Date.now();
  for (let from = have + 1; from <= total; from += BATCH) {
    const to = Math.min(total, from + BATCH - 1);
    // 60 % tenant-acme, 20 % conformance, 10 % each of two more; newest first = highest g; 2 % failed, 1 % waiting on input.
    await sql.unsafe(
      `WITH t AS (SELECT id, slug FROM tenants),
            rt AS (SELECT id FROM routes WHERE tool_name = 'durable_report' LIMIT 1)
       INSERT INTO runs (id, tenant_id, route_id, workflow_name, workflow_version, workflow_key, status, input, origin,
                         created_at, updated_at, finished_at, claimable_at, attempt, checkpoints)
       SELECT gen_random_uuid(),
              CASE WHEN g % 10 < 6 THEN (SELECT id FROM t WHERE slug = 'tenant-acme')
                   WHEN g % 10 < 8 THEN (SELECT id FROM t WHERE slug = 'conformance')
                   WHEN g % 10 = 8 THEN (SELECT id FROM t WHERE slug = 'bench-t3')
                   ELSE (SELECT id FROM t WHERE slug = 'bench-t4') END,
              CASE WHEN g % 10 < 6 THEN (SELECT id FROM rt) END,
              'generate-report', 1, 'generate-report@1',
              CASE WHEN g % 50 = 0 THEN 'failed' WHEN g % 97 = 0 THEN 'waiting_input' ELSE 'completed' END,
              jsonb_build_object('report_id', 'r' || g), 'modern',
              now() - make_interval(secs => ($3 - g) * 2.5), now() - make_interval(secs => ($3 - g) * 2.5),
              CASE WHEN g % 97 = 0 AND g % 50 <> 0 THEN NULL ELSE now() - make_interval(secs => ($3 - g) * 2.5) END,
              NULL, 1, 3
       FROM generate_series($1::int, $2::int) AS g`,
      [from, to, total],
    );
    await sql`UPDATE bench_meta SET rows = ${to}`;
    log(`seeded ${to} / ${total} runs (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  await sql`VACUUM ANALYZE runs`;
}

export async function benchListQuery(ctx: BenchContext) {
  // The scale size: 10M in full mode (seeded once, kept between runs), 100k in quick mode.
  const total = Number(process.env.BENCH_LIST_RUNS ?? (ctx.quick ? 100_000 : 10_000_000));
  const name = `bench_list_${total}`;
  let url = withDatabase(ctx.adminUrl, name);
  let have = -1; // -1: no usable database
  if (await databaseExists(ctx.adminUrl, name)) {
    const probe = postgres(url, { max: 1, onnotice: () => {} });
    have = await probe`SELECT rows FROM bench_meta`.then(
      (r) => Number(r[0]?.rows ?? -1),
      () => -1,
    );
    await probe.end();
  }
  if (have < 0) url = await recreateDatabase(ctx.adminUrl, name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    if (have < 0) {
      await prepare(sql);
      have = 0;
    } else {
      // A kept database still gets migrations added since it was seeded (new indexes change plans).
      const { applied } = await migrate(sql);
      if (applied.length) await sql.unsafe("ANALYZE runs");
      ctx.log(`reusing ${name} (${have} runs${applied.length ? `; applied ${applied.join(", ")}` : ""})`);
    }
    if (have < total) await topUp(sql, have, total, ctx.log);
    const acme = (await sql`SELECT id FROM tenants WHERE slug = 'tenant-acme'`)[0]?.id as string;
    const both = (await sql`SELECT array_agg(id) AS ids FROM tenants WHERE slug IN ('tenant-acme', 'bench-t3')`)[0]
      ?.ids as string[];
    const middle = (
      await sql`SELECT created_at, id FROM runs WHERE tenant_id = ${acme} ORDER BY created_at DESC, id DESC OFFSET ${Math.floor(total * 0.3)} LIMIT 1`
    )[0];
    const after = middle ? { createdAt: (middle.created_at as Date).toISOString(), id: middle.id as string } : undefined;
    const shapes: { key: string; filters: TaskListFilters; target?: boolean }[] = [
      { key: "operator_tenant_first_page", filters: { scope: [acme], tenantId: acme, limit: PAGE }, target: true },
      { key: "operator_tenant_deep_page", filters: { scope: [acme], tenantId: acme, after, limit: PAGE } },
      { key: "operator_tenant_status_failed", filters: { scope: [acme], tenantId: acme, statuses: ["failed"], limit: PAGE } },
      { key: "operator_of_two_tenants_first_page", filters: { scope: both, limit: PAGE } },
      { key: "admin_all_tenants_first_page", filters: { scope: null, limit: PAGE } },
    ];
    const samples = ctx.quick ? 50 : 200;
    const explains: Record<string, string> = {};
    for (const shape of shapes) {
      for (let i = 0; i < 3; i++) await listTaskPage(sql, shape.filters); // warm cache and plan
      const times: number[] = [];
      const budget = performance.now() + (ctx.quick ? 5_000 : 15_000); // slow shapes: fewer samples, bounded time
      for (let i = 0; i < samples && (i < 10 || performance.now() < budget); i++) {
        const t0 = performance.now();
        await listTaskPage(sql, shape.filters);
        times.push(performance.now() - t0);
      }
      const stats = summary(times);
      const note = `${total} runs, page of ${PAGE}, ${stats.n} samples`;
      ctx.report.figure(`list.${shape.key}.p50`, stats.p50, "ms", { note });
      if (shape.target) ctx.report.goal("scale.list_first_page.p50", stats.p50, `${shape.key}, ${note}`);
      ctx.report.figure(`list.${shape.key}.p99`, stats.p99, "ms");
      const plan = await explain(sql, shape.filters);
      explains[shape.key] = plan;
      const scans = [
        ...plan.matchAll(/(Index Only Scan|Bitmap Index Scan|Index Scan|Seq Scan)( Backward)? (?:using (\S+) )?on (\w+)/g),
      ].map((m) => `${m[1]}${m[3] ? ` ${m[3]}` : ""} on ${m[4]}`);
      process.stdout.write(`  plan ${shape.key}: ${[...new Set(scans)].join("; ")}\n`);
    }
    const read = await measureTaskRead(sql, total, ctx.quick ? 100 : 300);
    ctx.report.figure("scale.tasks_get_read.p99", read.p99, "ms");
    ctx.report.goal("scale.tasks_get_read.p50", read.p50, `readTaskRecord, ${read.n} random stored tasks of ${total}`);
    const disk = await diskPerMillion(sql, total);
    ctx.report.figure("scale.disk_per_million_runs", disk.perMillionMiB, "MiB", {
      note: `runs heap ${disk.heapMiB} MiB + indexes ${disk.indexMiB} MiB (+ toast) for ${total} runs; run_events/run_steps not seeded`,
    });
    ctx.report.attach("list", { total, explains, taskRead: read, disk });
  } finally {
    await sql.end();
  }
}

/** The statement behind MCP tasks/get (lib/tasks/queries/task-record.ts readTaskRecord) on random stored tasks. */
async function measureTaskRead(sql: postgres.Sql, total: number, samples: number) {
  // A block sample spread over the whole table, so the reads are not all from the hot newest pages.
  const percent = Math.min(100, Math.max(0.01, (100 * samples * 20) / total));
  const rows = await sql.unsafe(
    `SELECT id, tenant_id FROM runs TABLESAMPLE SYSTEM (${percent}) ORDER BY random() LIMIT ${samples}`,
  );
  for (const row of rows.slice(0, 10)) await readTaskRecord(sql, { tenantId: row.tenant_id, taskId: row.id }); // plan
  const times: number[] = [];
  for (const row of rows) {
    const t0 = performance.now();
    const record = await readTaskRecord(sql, { tenantId: row.tenant_id, taskId: row.id });
    times.push(performance.now() - t0);
    if (!record) throw new Error(`readTaskRecord found no row for stored run ${row.id}`);
  }
  return summary(times);
}

/** Bytes the seeded runs take: heap + toast + every index of runs (and run_events/run_steps, empty here). */
async function diskPerMillion(sql: postgres.Sql, total: number) {
  const [row] = await sql`SELECT pg_total_relation_size('runs')::float8 AS total, pg_relation_size('runs')::float8 AS heap,
                                 pg_indexes_size('runs')::float8 AS indexes,
                                 (pg_total_relation_size('run_events') + pg_total_relation_size('run_steps'))::float8 AS history`;
  const mib = (bytes: number) => round(bytes / 2 ** 20, 1);
  const all = Number(row?.total) + Number(row?.history);
  return {
    totalMiB: mib(all),
    heapMiB: mib(Number(row?.heap)),
    indexMiB: mib(Number(row?.indexes)),
    historyMiB: mib(Number(row?.history)),
    perMillionMiB: mib((all * 1_000_000) / total),
  };
}

/** EXPLAIN ANALYZE of exactly the statement listTaskPage sends (captured via postgres.js debug). */
async function explain(sql: postgres.Sql, filters: TaskListFilters): Promise<string> {
  let captured: { query: string; params: unknown[] } | undefined;
  const spy = new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === "unsafe")
        return (query: string, params: unknown[]) => {
          captured = { query, params };
          return Promise.resolve([]);
        };
      return Reflect.get(target, prop, receiver);
    },
  });
  await listTaskPage(spy as postgres.Sql, filters);
  if (!captured) return "";
  const rows = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${captured.query}`, captured.params as never[]);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}
