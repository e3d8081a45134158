// The official MCP reference server, @modelcontextprotocol/server-everything (pinned in package.json),
// as the bench's store-less ceiling: its Streamable HTTP transport keeps sessions and tasks in memory
// (the SDK's InMemoryTaskStore) and commits nothing before it answers.

import { spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "@runifold/store/embedded";
import { type Child, ROOT, waitFor } from "./procs";

const ENTRY = path.join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

export async function startReferenceServer(children: Child[]): Promise<{ mcpUrl: string; child: Child }> {
  const port = await freePort();
  const spawned = spawn(process.execPath, [ENTRY, "streamableHttp"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    // It logs a line per request to stdout: discarded unread, as Next's own output is.
    stdio: ["ignore", "ignore", "pipe"],
  });
  let output = "";
  spawned.stderr?.on("data", (chunk: Buffer) => {
    output = (output + chunk).slice(-20_000);
  });
  const child = Object.assign(spawned, { output: () => output });
  children.push(child);
  const mcpUrl = `http://127.0.0.1:${port}/mcp`;
  // Up when an empty POST gets any HTTP answer (it is refused) rather than a refused connection.
  await waitFor(
    async () => (await fetch(mcpUrl, { method: "POST", body: "{}" }).catch(() => undefined)) !== undefined,
    30_000,
    "the reference server to listen",
    100,
  );
  return { mcpUrl, child };
}
