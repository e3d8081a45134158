import http from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger } from "@runifold/sdk";
import type postgres from "postgres";
import { type CredentialLimits, createMcpHandler, createMcpStandaloneStreamHandler } from "../../lib/mcp";

/**
 * The MCP endpoint over node:http, as tests/helpers/mcp-server.ts serves it, with ONE limits object
 * given to the POST and GET handlers (as lib/server/mcp-route.ts does) so the test can set the caps
 * (tests/helpers/mcp-server.ts takes no limits; this file keeps the change out of that shared helper).
 */
export async function serveWithLimits(
  pool: postgres.Sql,
  limits: CredentialLimits,
): Promise<{ url: string; close(): Promise<void> }> {
  const deps = { sql: () => pool, logger: silentLogger, allowedOrigins: [], host: "127.0.0.1", limits };
  const post = createMcpHandler(deps);
  const get = createMcpStandaloneStreamHandler(deps);
  const httpServer = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
      signal: controller.signal,
    });
    const response = await (req.method === "GET" ? get(request) : post(request));
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (response.body) {
      const reader = response.body.getReader();
      try {
        for (let part = await reader.read(); !part.done; part = await reader.read()) res.write(part.value);
      } catch {
        // the client went away mid-stream
      }
    }
    res.end();
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/api/mcp`,
    async close() {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
