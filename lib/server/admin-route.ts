import { createLogger } from "@runifold/sdk";
import { readEnv } from "../env";
import { createAdminApiHandler } from "../http-api";
import { getSql } from "./db";

/** The web process's admin API (docs/api.md "Admin API"): lib/http-api's handler bound to this process. */
export function createWebAdminApiHandler(): (request: Request, segments: string[]) => Promise<Response> {
  return createAdminApiHandler({ sql: getSql, logger: createLogger("admin-api", readEnv().RUNIFOLD_LOG_LEVEL) });
}
