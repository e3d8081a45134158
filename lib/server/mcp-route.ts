import { createLogger } from "@runifold/sdk";
import { readEnv } from "../env";
import { createMcpHandler } from "../mcp";
import { getSql } from "./db";

/**
 * The web process's MCP handler: lib/mcp's pure handler bound to this process's environment, pool
 * (no workflow code: schemas and preflight come from the routes). Built once per process (module scope of app/api/mcp/route.ts).
 */
export function createWebMcpHandler(): (request: Request) => Promise<Response> {
  const env = readEnv();
  const publicOrigin = env.RUNIFOLD_PUBLIC_URL ? new URL(env.RUNIFOLD_PUBLIC_URL).origin : undefined;
  return createMcpHandler({
    sql: getSql,
    logger: createLogger("mcp", env.RUNIFOLD_LOG_LEVEL),
    allowedOrigins: [...env.RUNIFOLD_ALLOWED_ORIGINS, ...(publicOrigin ? [publicOrigin] : [])],
    insecureLoopbackTenant: env.RUNIFOLD_INSECURE_LOOPBACK_TENANT,
    host: env.HOST,
  });
}
