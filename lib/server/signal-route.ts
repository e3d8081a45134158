import { createLogger } from "@runifold/sdk";
import { readEnv } from "../env";
import { bearerVerifier, createSignalHandler, type SignalRouteParams } from "../http-api";
import { getSql } from "./db";
import { webOAuthConfig } from "./oauth-config";

/**
 * The web process's signal endpoint: lib/http-api's pure handler bound to this process's pool and
 * log level. Built once per process (module scope of app/api/v1/tasks/[id]/signals/[name]/route.ts).
 */
export function createWebSignalHandler(): (request: Request, params: SignalRouteParams) => Promise<Response> {
  return createSignalHandler({
    sql: getSql,
    logger: createLogger("http-api", readEnv().RUNIFOLD_LOG_LEVEL),
    verifyBearer: bearerVerifier(webOAuthConfig()),
  });
}
