// A web process for the primary-failover test: the MCP handler on a real HTTP port over the
// product's own pool (createDb: its connect timeout, application name and pooler setting), no
// worker inside. Prints "READY <url>" once listening; SIGTERM stops it.
import { createDb } from "@runifold/store";
import { startMcpTestServer } from "../helpers/mcp-server";

const { sql } = createDb(process.env.DATABASE_URL ?? "", { max: 10, name: "runifold-web" });
const server = await startMcpTestServer(sql, { worker: false, port: Number(process.env.PORT ?? 0) });
process.stdout.write(`READY ${server.url}\n`);
process.on("SIGTERM", () => {
  void server
    .close()
    .then(() => sql.end({ timeout: 5 }))
    .then(() => process.exit(0));
});
