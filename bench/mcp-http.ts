// (3) MCP over HTTP against the production build (`next start`): tools/call → CreateTaskResult
// latency and (4) listen: state change → notifications/tasks at the client, from a sequential load
// process (bench/procs/mcp-load.ts); then tasks/get and the bare route (GET /api/mcp, a 405) under the
// same autocannon load from another process (bench/procs/http-load.ts), and their ratio.

import { modernRequest, TASKS_ONLY } from "../tests/helpers/mcp-envelope";
import type { BenchContext } from "./lib/context";
import { type HttpLoadResult, httpLoad, medianLoad } from "./lib/http-load";
import { awaitResult, type Child, spawnWithResult, stopAll } from "./lib/procs";
import { type RunifoldWeb, startRunifoldWeb } from "./lib/runifold-web";
import { round, summary } from "./lib/stats";

/** autocannon connections for both sustained loads (keep-alive, one request in flight each). */
const CONNECTIONS = 16;

export async function benchMcpHttp(ctx: BenchContext) {
  const children: Child[] = [];
  let stack: RunifoldWeb | undefined;
  try {
    stack = await startRunifoldWeb(ctx.adminUrl, "bench_mcp", children, ctx.log);
    const { url, mcpUrl, token } = stack;
    const load = spawnWithResult(
      "bench/procs/mcp-load.ts",
      {
        BENCH_MCP_URL: mcpUrl,
        BENCH_TOKEN: token,
        DATABASE_URL: url,
        BENCH_CREATES: String(ctx.quick ? 100 : 300),
        BENCH_LISTENS: String(ctx.quick ? 30 : 100),
      },
      "mcp-load",
    );
    children.push(load.child);
    const result = await awaitResult<{ create: number[]; ids: string[]; listen: number[]; bare: number[] }>(
      load.child,
      load.file,
      300_000,
      "MCP load process",
    );
    const r = ctx.report;
    const create = summary(result.create);
    const listen = summary(result.listen);
    r.goal("mcp.tools_call_create_task.p50", create.p50, `${create.n} sequential calls, next start`);
    r.figure("mcp.tools_call_create_task.p99", create.p99, "ms");
    const bareSequential = summary(result.bare);
    r.figure("mcp.bare_route.sequential_p50", bareSequential.p50, "ms", {
      note: `${bareSequential.n} sequential GET /api/mcp (405), same client: the floor under the create latency`,
    });
    r.figure("listen.state_change_to_notification.p50", listen.p50, "ms", {
      note: `${listen.n} cancels committed by SQL, SSE at the client`,
    });
    r.figure("listen.state_change_to_notification.p99", listen.p99, "ms");

    // Sustained loads, interleaved per round so a slow minute of a shared machine lands on all three:
    // the bare route, the same tasks/get POSTs without a credential, tasks/get. Same server, generator, settings.
    const seconds = ctx.quick ? 3 : 10;
    const rounds = ctx.quick ? 1 : 3;
    // Completed tasks from the create phase, one per connection at most; the same request shape as mcp-load's.
    const taskIds = result.ids.slice(-CONNECTIONS);
    // Context for the ratio: the same tasks/get POSTs without a credential (401 from the auth gate
    // before any database read): what Next's POST handling with a JSON body costs on its own.
    const unauthenticated = taskIds.map((taskId) => modernRequest("tasks/get", { taskId }, { capabilities: TASKS_ONLY }));
    const authenticated = taskIds.map((taskId) => modernRequest("tasks/get", { taskId }, { token, capabilities: TASKS_ONLY }));
    const loads = { bare: [] as HttpLoadResult[], post: [] as HttpLoadResult[], get: [] as HttpLoadResult[] };
    for (let round_ = 0; round_ < rounds; round_++) {
      const common = { url: mcpUrl, seconds, connections: CONNECTIONS };
      loads.bare.push(await httpLoad(children, { ...common, requests: [{ method: "GET", headers: {}, body: "" }] }));
      loads.post.push(await httpLoad(children, { ...common, requests: unauthenticated }));
      loads.get.push(await httpLoad(children, { ...common, requests: authenticated, check: "task-status" }));
    }
    const [bare, post, get] = [medianLoad(loads.bare), medianLoad(loads.post), medianLoad(loads.get)];
    const statusBare = bare.statusCodes["405"] ?? 0;
    const bareUnexpected = bare.errors + bare.timeouts + (bare.total - statusBare);
    r.figure("mcp.bare_route.throughput", round(bare.perSecond, 1), "req/s", {
      note: `GET /api/mcp (405 by design), ${CONNECTIONS} connections, ${bare.rounds} rounds, ${bare.seconds} s, ${bare.total} requests; median round`,
    });
    r.figure("mcp.bare_route.p50", bare.p50, "ms");
    r.figure("mcp.bare_route.p99", bare.p99, "ms");
    r.figure("mcp.bare_route.status_405", statusBare, "responses", { note: "expected: the route has no GET" });
    r.figure("mcp.bare_route.unexpected", bareUnexpected, "responses", { note: "errors, timeouts, status other than 405" });
    const status401 = post.statusCodes["401"] ?? 0;
    r.figure("mcp.bare_post_401.throughput", round(post.perSecond, 1), "req/s", {
      note: `tasks/get POSTs without a credential (401 before any database read), ${CONNECTIONS} connections, ${post.rounds} rounds interleaved with the others, ${post.seconds} s, ${post.total} requests, ${status401} answered 401; median round`,
    });
    r.figure("mcp.bare_post_401.p99", post.p99, "ms");
    if (status401 !== post.total || post.errors + post.timeouts > 0)
      throw new Error(`unauthenticated POST load: ${post.total - status401} answers other than 401, ${post.errors} errors`);
    const getUnexpected = get.errors + get.timeouts + get.non2xx;
    r.figure("mcp.tasks_get.throughput", round(get.perSecond, 1), "req/s", {
      note: `${CONNECTIONS} connections, ${get.rounds} rounds, ${get.seconds} s, ${get.total} requests (median round), ${get.non2xx} non-2xx, ${get.errors} errors, ${get.timeouts} timeouts`,
    });
    r.figure("mcp.tasks_get.p50", get.p50, "ms");
    r.goal("mcp.tasks_get.p99", get.p99);
    r.figure("mcp.tasks_get.unexpected", getUnexpected, "responses", { note: "errors, timeouts, non-2xx" });
    r.goal(
      "ratio.tasks_get_vs_bare_route",
      round(get.perSecond / bare.perSecond, 2),
      `${round(get.perSecond, 0)} ÷ ${round(bare.perSecond, 0)} req/s`,
    );
    r.goal(
      "ratio.tasks_get_vs_bare_post_401",
      round(get.perSecond / post.perSecond, 2),
      `${round(get.perSecond, 0)} ÷ ${round(post.perSecond, 0)} req/s: tasks/get against the same POST refused before its read`,
    );
    r.goal(
      "ratio.tasks_get_p99_vs_bare_post_401_p99",
      round(get.p99 / post.p99, 2),
      `${get.p99} ÷ ${post.p99} ms, the same loads`,
    );
    if (getUnexpected > 0) throw new Error(`tasks/get load had ${getUnexpected} errors/timeouts/non-2xx`);
    r.attach("mcp", { create, bareSequential, listen, bare, post, get, rounds: loads, webPool: 20 });
  } finally {
    await stopAll(children);
    await stack?.sql.end();
  }
}
