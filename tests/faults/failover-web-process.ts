// A web process for the primary-failover test: the MCP handler on a real HTTP port over the
// product's own pool (createDb: its connect timeout, application name and pooler setting), no
// worker inside, and beside it GET /api/health and /api/metrics as the web routes bind them (same
// pool), so the test samples what operators see. Prints "HEALTH <origin>" then "READY <url>" once
// listening; SIGTERM stops it.
import { createDb } from "@runifold/store";
import { healthResponse } from "../../lib/health";
import { createMetricsHandler } from "../../lib/metrics";
import { startMcpTestServer } from "../helpers/mcp-server";
import { serveRequests } from "../helpers/serve-requests";

// As Next.js's server does (installProcessErrorHandlers): an unhandled rejection is logged and the
// process serves on. postgres.js 3.4.9 leaves one when a connection dies while it fetches its array
// types (an un-awaited query), which a kill of the primary can cause; the test counts these lines.
process.on("unhandledRejection", (reason) => {
  process.stderr.write(`UNHANDLED REJECTION ${String((reason as Error)?.message ?? reason).slice(0, 200)}\n`);
});

const METRICS_TOKEN = "failover-metrics";
const { sql } = createDb(process.env.DATABASE_URL ?? "", { max: 10, name: "runifold-web" });
const metrics = createMetricsHandler({ sql: () => sql, token: METRICS_TOKEN });
const operator = await serveRequests((request) => {
  const path = new URL(request.url).pathname;
  if (path === "/api/health") return healthResponse(() => sql);
  if (path === "/api/metrics")
    return metrics(new Request(request.url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }));
  return new Response(null, { status: 404 });
});
const server = await startMcpTestServer(sql, { worker: false, port: Number(process.env.PORT ?? 0) });
process.stdout.write(`HEALTH ${operator.origin}\nREADY ${server.url}\n`);
process.on("SIGTERM", () => {
  void Promise.all([server.close(), operator.close()])
    .then(() => sql.end({ timeout: 5 }))
    .then(() => process.exit(0));
});
