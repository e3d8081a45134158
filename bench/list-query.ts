// (5) The UI's task list query (lib/tasks/queries/operator-task-list.ts listTaskPage, the statement behind
// app/(ui)/tasks) with 1M stored tasks seeded in bulk by generate_series: p50/p99 per page shape and
// EXPLAIN (ANALYZE, BUFFERS) of each, to show which index serves it.
import postgres from "postgres";
import { migrate } from "../db/migrate";
import { listTaskPage, type TaskListFilters } from "../lib/tasks";
import { seedDemo } from "../workflows/demo/seed";
import type { BenchContext } from "./lib/context";
import { databaseExists, recreateDatabase, withDatabase } from "./lib/pg";
import { summary } from "./lib/stats";

const PAGE = 25 + 1; // TASK_PAGE_SIZE + 1, as lib/ui/presenters/task-list.ts asks

async function seed(sql: postgres.Sql, total: number, log: (l: string) => void) {
  await migrate(sql);
  await seedDemo(sql);
  await sql`INSERT INTO tenants (slug, name) VALUES ('bench-t3', 'Bench 3'), ('bench-t4', 'Bench 4')`;
  const started = Date.now();
  // 60 % tenant-acme, 20 % conformance, 10 % each of two more; newest first = highest g; 2 % failed, 1 % waiting on input.
  await sql.unsafe(
    `WITH t AS (SELECT array_agg(id ORDER BY slug) AS ids FROM tenants),
          rt AS (SELECT id FROM routes WHERE tool_name = 'durable_report' LIMIT 1)
     INSERT INTO runs (id, tenant_id, route_id, workflow_name, workflow_version, workflow_key, status, input, origin,
                       created_at, updated_at, finished_at, claimable_at, attempt, checkpoints)
     SELECT gen_random_uuid(),
            CASE WHEN g % 10 < 6 THEN t.ids[array_position(t.ids, (SELECT id FROM tenants WHERE slug = 'tenant-acme'))]
                 WHEN g % 10 < 8 THEN (SELECT id FROM tenants WHERE slug = 'conformance')
                 WHEN g % 10 = 8 THEN (SELECT id FROM tenants WHERE slug = 'bench-t3')
                 ELSE (SELECT id FROM tenants WHERE slug = 'bench-t4') END,
            CASE WHEN g % 10 < 6 THEN (SELECT id FROM rt) END,
            'generate-report', 1, 'generate-report@1',
            CASE WHEN g % 50 = 0 THEN 'failed' WHEN g % 97 = 0 THEN 'waiting_input' ELSE 'completed' END,
            jsonb_build_object('report_id', 'r' || g), 'modern',
            now() - make_interval(secs => ($1 - g) * 2.5), now() - make_interval(secs => ($1 - g) * 2.5),
            CASE WHEN g % 97 = 0 AND g % 50 <> 0 THEN NULL ELSE now() - make_interval(secs => ($1 - g) * 2.5) END,
            NULL, 1, 3
     FROM generate_series(1, $1) AS g, t`,
    [total],
  );
  await sql`VACUUM ANALYZE runs`;
  await sql`CREATE TABLE bench_meta (rows int)`;
  await sql`INSERT INTO bench_meta VALUES (${total})`;
  log(`seeded ${total} runs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export async function benchListQuery(ctx: BenchContext) {
  const total = ctx.quick ? 100_000 : 1_000_000;
  const name = `bench_list_${total}`;
  let url = withDatabase(ctx.adminUrl, name);
  let reuse = await databaseExists(ctx.adminUrl, name);
  if (reuse) {
    const probe = postgres(url, { max: 1, onnotice: () => {} });
    reuse = await probe`SELECT rows FROM bench_meta`.then(
      (r) => r[0]?.rows === total,
      () => false,
    );
    await probe.end();
  }
  if (!reuse) url = await recreateDatabase(ctx.adminUrl, name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    if (!reuse) await seed(sql, total, ctx.log);
    else {
      // A kept database still gets migrations added since it was seeded (new indexes change plans).
      const { applied } = await migrate(sql);
      if (applied.length) await sql.unsafe("ANALYZE runs");
      ctx.log(`reusing ${name} (${total} runs${applied.length ? `; applied ${applied.join(", ")}` : ""})`);
    }
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
      if (shape.target) ctx.report.target(`list.${shape.key}.p50`, stats.p50, "ms", "<=", 20, note);
      else ctx.report.figure(`list.${shape.key}.p50`, stats.p50, "ms", { note });
      ctx.report.figure(`list.${shape.key}.p99`, stats.p99, "ms");
      const plan = await explain(sql, shape.filters);
      explains[shape.key] = plan;
      const scans = [
        ...plan.matchAll(/(Index Only Scan|Bitmap Index Scan|Index Scan|Seq Scan)( Backward)? (?:using (\S+) )?on (\w+)/g),
      ].map((m) => `${m[1]}${m[3] ? ` ${m[3]}` : ""} on ${m[4]}`);
      process.stdout.write(`  plan ${shape.key}: ${[...new Set(scans)].join("; ")}\n`);
    }
    ctx.report.attach("list", { total, explains });
  } finally {
    await sql.end();
  }
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
