// A web process for restart tests: the MCP handler on a real HTTP port, no worker inside.
// Prints "READY <url>" once listening; SIGKILL it to simulate a crash, SIGTERM to stop it.
import postgres from "postgres";
import { startMcpTestServer } from "./mcp-server";

const sql = postgres(process.env.DATABASE_URL ?? "", { max: 10, onnotice: () => {} });
const server = await startMcpTestServer(sql, { worker: false, port: Number(process.env.PORT ?? 0) });
process.stdout.write(`READY ${server.url}\n`);
process.on("SIGTERM", () => {
  void server
    .close()
    .then(() => sql.end())
    .then(() => process.exit(0));
});
