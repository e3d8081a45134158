import { createLogger } from "@runifold/sdk";
import { readEnv } from "../env";
import { startScheduler } from "../schedules";
import { getSql } from "./db";

/**
 * The route scheduler on the web process's pool. Every web instance runs it; each pass's lock lets
 * one act and every fire time has its own idempotency key, so no schedule fires twice (lib/schedules).
 */
export function startWebScheduler(): void {
  const env = readEnv();
  startScheduler({ sql: getSql(), logger: createLogger("scheduler", env.RUNIFOLD_LOG_LEVEL) });
}
