import type { Logger } from "@runifold/sdk";
import { coerceError } from "@runifold/sdk";
import type postgres from "postgres";
import { runRetention } from "./run-retention";

export type RetentionTimer = { stop(): Promise<void> };

/**
 * The worker's periodic cleaner. Every worker runs one; the advisory lock makes all but one step
 * aside each round, so the job survives any single worker's death without a scheduler. A pass
 * still in progress is never overlapped, and any failure is logged — it must never take the
 * worker (and the runs it executes) down with it.
 */
export function startRetentionTimer(params: {
  sql: postgres.Sql;
  holder: string;
  intervalMs: number;
  logger: Logger;
  batchSize?: number;
  /**
   * Other expired state the composition root owns (OAuth codes and tokens, MCP sessions): purged
   * after each pass this process completed, so only the round's lock holder does it.
   */
  alsoPurge?: { name: string; purge: () => Promise<Record<string, number>> }[];
}): RetentionTimer {
  const { sql, holder, intervalMs, logger } = params;
  let running: Promise<void> | undefined;
  const abort = new AbortController();
  const tick = () => {
    if (running || abort.signal.aborted) return;
    running = runRetention(sql, { holder, batchSize: params.batchSize, signal: abort.signal })
      .then((report) => {
        if (report.status === "skipped") logger.debug("retention skipped", { reason: report.reason });
        else if (report.status === "completed") {
          const log = report.purged > 0 || report.nonces > 0 ? logger.info : logger.debug;
          log("retention pass", {
            epoch: report.epoch,
            purged: report.purged,
            nonces: report.nonces,
            batches: report.batches,
            durationMs: report.durationMs,
          });
        } else logger.warn(`retention ${report.status}`, { epoch: report.epoch, purged: report.purged, error: report.error });
        return report.status === "completed" ? purgeOthers(params.alsoPurge ?? [], logger) : undefined;
      })
      .catch((error) => logger.warn("retention pass failed", { error: coerceError(error).message }))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  // Never keeps a draining process alive on its own.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      abort.abort();
      await running; // at most the batch in flight: the pass stops between batches
    },
  };
}

async function purgeOthers(purges: { name: string; purge: () => Promise<Record<string, number>> }[], logger: Logger) {
  for (const { name, purge } of purges) {
    try {
      const counts = await purge();
      const log = Object.values(counts).some((n) => n > 0) ? logger.info : logger.debug;
      log(`${name} purged`, counts);
    } catch (error) {
      logger.warn(`${name} purge failed`, { error: coerceError(error).message });
    }
  }
}
