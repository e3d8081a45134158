import { readEnv } from "../env";
import { createMetricsHandler } from "../metrics";
import { getSql } from "./db";

/**
 * GET /api/metrics bound to this process: its pool and RUNIFOLD_METRICS_TOKEN. The environment is
 * read on the first request, not at import (`next build` imports route modules).
 */
export function createWebMetricsHandler(): (request: Request) => Promise<Response> {
  let handler: ((request: Request) => Promise<Response>) | undefined;
  return (request) => {
    handler ??= createMetricsHandler({ sql: getSql, token: readEnv().RUNIFOLD_METRICS_TOKEN });
    return handler(request);
  };
}
