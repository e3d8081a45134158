import http from "node:http";
import type { AddressInfo } from "node:net";
import { createWorker, type Logger, silentLogger, type Worker } from "@runifold/sdk";
import type postgres from "postgres";
import {
  createMcpHandler,
  createMcpSessionDeleteHandler,
  createMcpStandaloneStreamHandler,
  type McpPostHandler,
} from "../../lib/mcp";
import { type CorsPolicy, preflight, withCors } from "../../lib/server/cors";
import { shippedWorkflows } from "../../workflows/demo";

/**
 * A real HTTP server around the same createMcpHandler that app/api/mcp/route.ts binds (with test
 * dependencies instead of the process environment), plus an in-process worker: protocol tests run over real sockets without a Next build.
 * (The Next app itself is exercised by the conformance suite and the Playwright e2e run.)
 */
export async function startMcpTestServer(
  sql: postgres.Sql,
  options: {
    insecureLoopbackTenant?: string;
    allowedOrigins?: string[];
    worker?: boolean;
    logger?: Logger;
    port?: number;
    /** Serve as the web route does: CORS headers on answers, OPTIONS preflights (lib/server/mcp-route.ts). */
    cors?: CorsPolicy;
    /** OAuth on: access tokens for `resource` accepted, 401s name `resourceMetadataUrl` (an OAuthConfig fits). */
    oauth?: { resource: string; resourceMetadataUrl: string };
    /** Wraps the POST handler as the web route does (lib/server's observeMcpRequests: metrics and the request span). */
    wrap?: (handler: McpPostHandler) => (request: Request) => Promise<Response>;
    /** The in-process worker's logger (default silent). */
    workerLogger?: Logger;
    /** A shorter life for standalone GET streams (default 10 minutes, lib/mcp/legacy/standalone-stream.ts). */
    standaloneMaxLifetimeMs?: number;
    /** The per-credential cap on live tasks (RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY; default the handler's). */
    maxActiveTasksPerKey?: number;
  } = {},
): Promise<{ url: string; worker?: Worker; close(): Promise<void> }> {
  const cors = options.cors;
  const deps = {
    sql: () => sql,
    logger: options.logger ?? silentLogger,
    allowedOrigins: options.allowedOrigins ?? [],
    insecureLoopbackTenant: options.insecureLoopbackTenant,
    host: "127.0.0.1",
    oauth: options.oauth,
    maxActiveTasksPerKey: options.maxActiveTasksPerKey,
  };
  const bare = (options.wrap ?? ((handler) => handler))(createMcpHandler(deps));
  const deleteSession = cors ? withCors(createMcpSessionDeleteHandler(deps), cors) : createMcpSessionDeleteHandler(deps);
  const handleMcp = cors ? withCors(bare, cors) : bare;
  const standalone = createMcpStandaloneStreamHandler(deps, { maxLifetimeMs: options.standaloneMaxLifetimeMs });
  const handleGet = cors ? withCors(standalone, cors) : standalone;
  const answer = (request: Request): Promise<Response> | Response => {
    if (request.method === "POST") return handleMcp(request);
    // Legacy session termination, as app/api/mcp/route.ts binds it.
    if (request.method === "DELETE") return deleteSession(request);
    // A legacy session's standalone SSE stream (405 without a session), as app/api/mcp/route.ts binds it.
    if (request.method === "GET") return handleGet(request);
    if (cors && request.method === "OPTIONS") return preflight(request, cors);
    return new Response(null, { status: 405 });
  };
  const server = http.createServer(async (req, res) => {
    try {
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
      const response = await answer(request);
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (response.body) {
        const reader = response.body.getReader();
        for (let part = await reader.read(); !part.done; part = await reader.read()) res.write(part.value);
      }
      res.end();
    } catch (error) {
      res.writeHead(500);
      res.end(String(error));
    }
  });
  await listen(server, options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  let worker: Worker | undefined;
  if (options.worker !== false) {
    worker = createWorker({
      sql,
      registry: shippedWorkflows,
      logger: options.workerLogger ?? silentLogger,
      pollMs: 200,
      leaseMs: 5_000,
    });
    await worker.start();
  }
  return {
    url: `http://127.0.0.1:${port}/api/mcp`,
    worker,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker?.stop(500);
    },
  };
}

/**
 * Binds 127.0.0.1:port. A restart test asks for the port its predecessor had (clients keep the
 * URL); the kernel may not have released it the instant that process died, or another socket may
 * hold it for a moment, so EADDRINUSE is retried for a while instead of failing the test.
 */
async function listen(server: http.Server, port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          server.off("error", reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || port === 0 || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
