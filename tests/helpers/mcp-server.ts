import { createWorker, type Logger, silentLogger, type Worker } from "@runifold/sdk";
import type postgres from "postgres";
import {
  type CredentialLimits,
  createMcpHandler,
  createMcpSessionDeleteHandler,
  createMcpStandaloneStreamHandler,
  type McpHandlerDeps,
  type McpPostHandler,
} from "../../lib/mcp";
import { type CorsPolicy, preflight, withCors } from "../../lib/server/cors";
import { shippedWorkflows } from "../../workflows/demo";
import { serveRequests } from "./serve-requests";

/** What a test may set of the MCP handler's process dependencies (lib/mcp McpHandlerDeps); the rest as the web route's defaults. */
export type McpHandlerOptions = {
  insecureLoopbackTenant?: string;
  /** RUNIFOLD_ALLOWED_ORIGINS (default none). */
  allowedOrigins?: string[];
  logger?: Logger;
  /** OAuth on: access tokens for `resource` accepted, 401s name `resourceMetadataUrl` (an OAuthConfig fits). */
  oauth?: { resource: string; resourceMetadataUrl: string };
  /** The per-credential cap on live tasks (RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY; default the handler's). */
  maxActiveTasksPerKey?: number;
  /** Per-credential stream, wait and creation budgets (createCredentialLimits), shared by POST and GET as the web route shares them. */
  limits?: CredentialLimits;
  /** RUNIFOLD_PUBLIC_URL: where URL-mode input points (lib/mcp/url-input.ts); default none, so no URL mode. */
  publicUrl?: string;
};

/** The MCP handler's dependencies for a test: the one place tests/helpers turns options into McpHandlerDeps. */
export function mcpHandlerDeps(sql: postgres.Sql, options: McpHandlerOptions = {}): McpHandlerDeps {
  return {
    sql: () => sql,
    logger: options.logger ?? silentLogger,
    allowedOrigins: options.allowedOrigins ?? [],
    insecureLoopbackTenant: options.insecureLoopbackTenant,
    host: "127.0.0.1",
    oauth: options.oauth,
    maxActiveTasksPerKey: options.maxActiveTasksPerKey,
    limits: options.limits,
    publicUrl: options.publicUrl,
  };
}

export type McpTestServerOptions = McpHandlerOptions & {
  /** An in-process worker for the shipped workflows (default on). */
  worker?: boolean;
  port?: number;
  /** Serve as the web route does: CORS headers on answers, OPTIONS preflights (lib/server/mcp-route.ts). */
  cors?: CorsPolicy;
  /** Wraps the POST handler as the web route does (lib/server's observeMcpRequests: metrics and the request span). */
  wrap?: (handler: McpPostHandler) => (request: Request) => Promise<Response>;
  /** The in-process worker's logger (default silent). */
  workerLogger?: Logger;
  /** A shorter life for standalone GET streams (default 10 minutes, lib/mcp/legacy/standalone-stream.ts). */
  standaloneMaxLifetimeMs?: number;
};

export type McpTestServer = { url: string; worker?: Worker; close(): Promise<void> };

/**
 * A real HTTP server around the same handlers that app/api/mcp/route.ts binds (POST, DELETE, GET),
 * with test dependencies instead of the process environment, plus an in-process worker: protocol
 * tests run over real sockets without a Next build. (The Next app itself is exercised by the
 * conformance suite and the Playwright e2e run.)
 */
export async function startMcpTestServer(sql: postgres.Sql, options: McpTestServerOptions = {}): Promise<McpTestServer> {
  const cors = options.cors;
  const deps = mcpHandlerDeps(sql, options);
  const post = (options.wrap ?? ((handler) => handler))(createMcpHandler(deps));
  const deleteSession = createMcpSessionDeleteHandler(deps);
  const standalone = createMcpStandaloneStreamHandler(deps, { maxLifetimeMs: options.standaloneMaxLifetimeMs });
  const handleMcp = cors ? withCors(post, cors) : post;
  const handleDelete = cors ? withCors(deleteSession, cors) : deleteSession;
  const handleGet = cors ? withCors(standalone, cors) : standalone;
  const server = await serveRequests(
    (request) => {
      if (request.method === "POST") return handleMcp(request);
      // Legacy session termination, as app/api/mcp/route.ts binds it.
      if (request.method === "DELETE") return handleDelete(request);
      // A legacy session's standalone SSE stream (405 without a session), as app/api/mcp/route.ts binds it.
      if (request.method === "GET") return handleGet(request);
      if (cors && request.method === "OPTIONS") return preflight(request, cors);
      return new Response(null, { status: 405 });
    },
    { port: options.port },
  );
  const worker = options.worker === false ? undefined : await startShippedWorker(sql, options.workerLogger);
  return {
    url: `${server.origin}/api/mcp`,
    worker,
    async close() {
      await server.close();
      await worker?.stop(500);
    },
  };
}

/** An in-process worker for the shipped demo workflows, polling fast enough for tests. */
export async function startShippedWorker(sql: postgres.Sql, logger: Logger = silentLogger): Promise<Worker> {
  const worker = createWorker({ sql, registry: shippedWorkflows, logger, pollMs: 200, leaseMs: 5_000 });
  await worker.start();
  return worker;
}
