// (7) The store-less ceiling: the official reference server (@modelcontextprotocol/server-everything,
// tasks in memory) beside Runifold's legacy leg (2025-11-25, every answer committed to PostgreSQL),
// driven with the same generator, connection count and envelope rules (a session each, a fresh
// JSON-RPC id per request), interleaved: sequential creation in alternating blocks, then sustained
// creation and tasks/get on completed tasks, each server in turn per round. CPU per request comes from
// the OS's accounting of each server's processes (Runifold: web + worker + PostgreSQL).

import type { BenchContext } from "./lib/context";
import { CpuMeter, postmasterPid } from "./lib/cpu";
import { httpLoad } from "./lib/http-load";
import { createTaskRequest, getTaskRequest, openLegacySession, send } from "./lib/legacy-session";
import { awaitResult, type Child, spawnWithResult, stopAll, waitFor } from "./lib/procs";
import { addCpu, type Leg, reportLegs } from "./lib/reference-report";
import { startReferenceServer } from "./lib/reference-server";
import { type RunifoldWeb, startRunifoldWeb } from "./lib/runifold-web";
import { sleep, summary } from "./lib/stats";

const CONNECTIONS = 16;
/** The reference tool runs four 1 s stages on timers: its tasks complete (and spend their CPU) within 5 s. */
const REFERENCE_TASK_MS = 5_000;

export async function benchReferenceServer(ctx: BenchContext) {
  const children: Child[] = [];
  let stack: RunifoldWeb | undefined;
  try {
    stack = await startRunifoldWeb(ctx.adminUrl, "bench_reference", children, ctx.log);
    const runifold = stack;
    const reference = await startReferenceServer(children);
    // Context, not a goal: the same handler, database and worker without Next (the product serves
    // /api/mcp from Next; this says how much of the gap to the reference server is Next's own).
    const plain = await runifold.startPlainTwin();
    const cpu = new CpuMeter({
      reference: reference.child.pid,
      web: runifold.web.pid,
      plain: plain.child.pid,
      worker: runifold.worker.pid,
      postgres: await postmasterPid(runifold.sql),
    });
    const treesOf = (name: string) =>
      name === "reference" ? ["reference"] : [name === "runifold" ? "web" : "plain", "worker", "postgres"];
    const runifoldTarget = (name: string, url: string) =>
      openLegacySession({
        name,
        url,
        headers: { authorization: `Bearer ${runifold.token}` },
        tool: { name: "slow_compute", arguments: { seconds: 0 } },
      });
    const targets = [
      await openLegacySession({
        name: "reference",
        url: reference.mcpUrl,
        headers: {},
        tool: { name: "simulate-research-query", arguments: { topic: "bench" } },
      }),
      await runifoldTarget("runifold", runifold.mcpUrl),
      await runifoldTarget("runifold_plain", plain.mcpUrl),
    ];
    const r = ctx.report;

    const load = spawnWithResult(
      "bench/procs/reference-load.ts",
      { BENCH_TARGETS: JSON.stringify(targets), BENCH_CREATES: String(ctx.quick ? 100 : 300) },
      "reference-load",
    );
    children.push(load.child);
    const sequential = await awaitResult<Record<string, { times: number[]; ids: string[] }>>(
      load.child,
      load.file,
      300_000,
      "reference load process",
    );
    for (const target of targets) {
      const s = summary(sequential[target.name]?.times ?? []);
      r.figure(`reference.create_sequential.${target.name}.p50`, s.p50, "ms", {
        note: `${s.n} sequential tools/call with task, blocks of 20 alternating between the servers`,
      });
      r.figure(`reference.create_sequential.${target.name}.p99`, s.p99, "ms");
    }

    const seconds = ctx.quick ? 3 : 10;
    const rounds = ctx.quick ? 1 : 2;
    const runsLeft = async () =>
      Number((await runifold.sql`SELECT count(*) AS n FROM runs WHERE status NOT IN ('completed', 'failed', 'cancelled')`)[0]?.n);
    const creates: Leg[] = targets.map((target) => ({ target, loads: [], cpuMs: 0, cpuByProcess: {} }));
    for (let round_ = 0; round_ < rounds; round_++)
      for (const leg of creates) {
        const before = cpu.read();
        leg.loads.push(
          await httpLoad(children, {
            url: leg.target.url,
            connections: CONNECTIONS,
            seconds,
            freshIds: true,
            check: "task-created",
            requests: [createTaskRequest(leg.target)],
          }),
        );
        // A creation's cost includes running what it created: Runifold's worker drains the runs, the
        // reference server's timers finish their stages.
        if (leg.target.name !== "reference")
          await waitFor(async () => (await runsLeft()) === 0, 300_000, "the created runs to complete", 100);
        else await sleep(REFERENCE_TASK_MS);
        addCpu(leg, cpu.since(before), treesOf(leg.target.name));
      }
    const createTotals = reportLegs(r, creates, {
      figure: "reference.create",
      cpuFigure: "cpu.per_create_and_run",
      cpuNotes: {
        runifold: "web + worker + PostgreSQL CPU per task created over MCP and run to completion (one step)",
        runifold_plain: "the same without Next: the handler in node:http + worker + PostgreSQL",
        reference: "the reference server's CPU per task created and run to completion (four timer stages, in memory)",
      },
      goal: "ratio.create_vs_reference_server",
      load: `${CONNECTIONS} connections, ${rounds} × ${seconds} s`,
    });

    // tasks/get on tasks that have completed, one per connection at most.
    const gets: Leg[] = targets.map((target) => ({ target, loads: [], cpuMs: 0, cpuByProcess: {} }));
    const taskIds = Object.fromEntries(targets.map((t) => [t.name, (sequential[t.name]?.ids ?? []).slice(-CONNECTIONS)]));
    for (const target of targets)
      for (const taskId of taskIds[target.name] ?? [])
        await waitFor(
          async () => (await send(target, getTaskRequest(target, taskId))).status === "completed",
          60_000,
          `${target.name} task ${taskId} to complete`,
          200,
        );
    for (let round_ = 0; round_ < rounds; round_++)
      for (const leg of gets) {
        const before = cpu.read();
        leg.loads.push(
          await httpLoad(children, {
            url: leg.target.url,
            connections: CONNECTIONS,
            seconds,
            freshIds: true,
            check: "task-status",
            requests: (taskIds[leg.target.name] ?? []).map((taskId) => getTaskRequest(leg.target, taskId)),
          }),
        );
        addCpu(leg, cpu.since(before), treesOf(leg.target.name));
      }
    const getTotals = reportLegs(r, gets, {
      figure: "reference.tasks_get",
      cpuFigure: "cpu.per_tasks_get",
      cpuNotes: {
        runifold: "web + PostgreSQL (+ an idle worker) CPU per tasks/get",
        runifold_plain: "the same without Next: the handler in node:http + PostgreSQL (+ an idle worker)",
        reference: "the reference server's CPU per tasks/get",
      },
      goal: "ratio.tasks_get_vs_reference_server",
      load: `${CONNECTIONS} connections, ${rounds} × ${seconds} s`,
    });
    r.attach("reference", { sequential: Object.keys(sequential), creates: createTotals, gets: getTotals });
    const unexpected = [...Object.values(createTotals), ...Object.values(getTotals)].reduce((sum, t) => sum + t.unexpected, 0);
    if (unexpected > 0) throw new Error(`${unexpected} errors/timeouts/non-2xx under load (see the figures' notes)`);
  } finally {
    await stopAll(children);
    await stack?.sql.end();
  }
}
