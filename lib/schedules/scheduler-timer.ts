import type { Logger } from "@runifold/sdk";
import { coerceError } from "@runifold/sdk";
import type postgres from "postgres";
import { runSchedulerPass } from "./scheduler-pass";

export type SchedulerTimer = { stop(): Promise<void> };

/**
 * The periodic scheduler. Every process that runs it tries each pass; each schedule's lock lets one
 * act on it (scheduler-pass.ts), so schedules survive any one process's death. A pass in progress is never
 * overlapped, and a failure is logged — it never takes the process down.
 */
export function startScheduler(params: { sql: postgres.Sql; logger: Logger; intervalMs?: number }): SchedulerTimer {
  const intervalMs = params.intervalMs ?? 5_000;
  // A pass is late by up to its interval (plus a slow pass): within this, `skip` still fires.
  const graceMs = Math.max(60_000, 3 * intervalMs);
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = runSchedulerPass(params.sql, { logger: params.logger, graceMs })
      .then((pass) => {
        if (pass.status === "completed" && pass.fired.length > 0) params.logger.info("schedules fired", { fired: pass.fired });
      })
      .catch((error) => params.logger.warn("scheduler pass failed", { error: coerceError(error).message }))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
