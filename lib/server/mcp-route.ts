import { createLogger } from "@runifold/sdk";
import { readEnv } from "../env";
import {
  type CredentialLimits,
  createCredentialLimits,
  createMcpHandler,
  createMcpSessionDeleteHandler,
  createMcpStandaloneStreamHandler,
  type McpHandlerDeps,
} from "../mcp";
import { type CorsPolicy, preflight, withCors } from "./cors";
import { getSql } from "./db";
import { observeMcpRequests } from "./mcp-observe";
import { webOAuthConfig } from "./oauth-config";

export { observeMcpRequests } from "./mcp-observe";

/** The methods /api/mcp answers (GET: a legacy session's stream; DELETE: ends it); what a preflight may ask for. */
const MCP_METHODS = ["POST", "GET", "DELETE", "OPTIONS"] as const;

/** Origins allowed besides non-browser clients: RUNIFOLD_ALLOWED_ORIGINS plus the public URL's origin. */
export function allowedOrigins(): string[] {
  const env = readEnv();
  const publicOrigin = env.RUNIFOLD_PUBLIC_URL ? new URL(env.RUNIFOLD_PUBLIC_URL).origin : undefined;
  return [...env.RUNIFOLD_ALLOWED_ORIGINS, ...(publicOrigin ? [publicOrigin] : [])];
}

function mcpCorsPolicy(): CorsPolicy {
  return { allowedOrigins: allowedOrigins(), methods: MCP_METHODS };
}

/**
 * The web process's MCP handler: lib/mcp's pure handler bound to this process's environment, pool
 * (no workflow code: schemas and preflight come from the routes) and CORS policy. Built once per
 * process (module scope of app/api/mcp/route.ts).
 */
export function createWebMcpHandler(): (request: Request) => Promise<Response> {
  // Metrics and the request span around the protocol handler (mcp-observe.ts); lib/mcp knows neither.
  return withCors(observeMcpRequests(createMcpHandler(webMcpDeps())), mcpCorsPolicy());
}

let limits: CredentialLimits | undefined;

/** The process's per-credential budgets, created once so the POST and GET handlers count the same streams. */
function webCredentialLimits(): CredentialLimits {
  const env = readEnv();
  limits ??= createCredentialLimits({
    maxStreamsPerKey: env.RUNIFOLD_MAX_STREAMS_PER_KEY,
    maxWaitsPerKey: env.RUNIFOLD_MAX_WAITS_PER_KEY,
    maxTaskCreatesPerMinutePerKey: env.RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_KEY,
    maxTaskCreatesPerMinutePerTenant: env.RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_TENANT,
  });
  return limits;
}

function webMcpDeps(): McpHandlerDeps {
  const env = readEnv();
  return {
    sql: getSql,
    logger: createLogger("mcp", env.RUNIFOLD_LOG_LEVEL),
    allowedOrigins: allowedOrigins(),
    insecureLoopbackTenant: env.RUNIFOLD_INSECURE_LOOPBACK_TENANT,
    host: env.HOST,
    oauth: webOAuthConfig(),
    maxActiveTasksPerKey: env.RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY,
    limits: webCredentialLimits(),
    publicUrl: env.RUNIFOLD_PUBLIC_URL,
  };
}

/** DELETE /api/mcp: a legacy client ends its Mcp-Session-Id session (lib/mcp/session-delete.ts). */
export function createWebMcpSessionDelete(): (request: Request) => Promise<Response> {
  return withCors(createMcpSessionDeleteHandler(webMcpDeps()), mcpCorsPolicy());
}

/**
 * GET /api/mcp: a legacy session's standalone SSE stream (lib/mcp/standalone-get.ts; 405 without a
 * session), with CORS headers for a listed origin. Not wrapped in observeMcpRequests: its labels and
 * span come from a POSTed message's body, and a GET has none.
 */
export function createWebMcpStandaloneStream(): (request: Request) => Promise<Response> {
  return withCors(createMcpStandaloneStreamHandler(webMcpDeps()), mcpCorsPolicy());
}

/** OPTIONS /api/mcp: the CORS preflight. */
export function createWebMcpPreflight(): (request: Request) => Response {
  const policy = mcpCorsPolicy();
  return (request) => preflight(request, policy);
}
