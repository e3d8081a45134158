// A web process for restart tests and the bench: the MCP handler on a real HTTP port, no worker inside,
// wrapped as the web route wraps it (lib/server observeMcpRequests: metrics and the request span), on a
// pool of the web's size. The per-credential budgets follow the RUNIFOLD_MAX_* variables when they are
// set (the bench lifts them as it does for `next start`), the handler's defaults otherwise.
// Prints "READY <url>" once listening; SIGKILL it to simulate a crash, SIGTERM to stop it.
import postgres from "postgres";
import { createCredentialLimits } from "../../lib/mcp";
import { observeMcpRequests } from "../../lib/server/mcp-route";
import { startMcpTestServer } from "./mcp-server";

const numberFromEnv = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);

const sql = postgres(process.env.DATABASE_URL ?? "", { max: 20, onnotice: () => {} });
const server = await startMcpTestServer(sql, {
  worker: false,
  port: Number(process.env.PORT ?? 0),
  wrap: observeMcpRequests,
  maxActiveTasksPerKey: numberFromEnv("RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY"),
  limits: createCredentialLimits({
    maxTaskCreatesPerMinutePerKey: numberFromEnv("RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_KEY"),
    maxTaskCreatesPerMinutePerTenant: numberFromEnv("RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_TENANT"),
  }),
});
process.stdout.write(`READY ${server.url}\n`);
process.on("SIGTERM", () => {
  void server
    .close()
    .then(() => sql.end())
    .then(() => process.exit(0));
});
