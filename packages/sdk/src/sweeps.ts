import type postgres from "postgres";
import { coerceError } from "./errors";
import type { Logger } from "./logger";
import { expireRuns } from "./ops/expire-runs";
import { markStrandedRuns } from "./ops/mark-stranded-runs";
import { pruneIdempotencyKeys } from "./ops/prune-idempotency-keys";

/**
 * The store's housekeeping, run by every worker (the statements skip rows another worker holds and
 * are idempotent, so no coordination is needed): runs past their own timeout end `failed` wherever
 * they are parked; runs no online worker serves get a status message saying so; expired
 * idempotency keys are deleted. A pass never overlaps the previous one, and a failure is logged,
 * never thrown: it must not take the worker down.
 */
export function startSweeps(params: { sql: postgres.Sql; logger: Logger; intervalMs: number; strandedAfterMs?: number }): {
  stop(): Promise<void>;
} {
  const { sql, logger, intervalMs } = params;
  const strandedAfterMs = params.strandedAfterMs ?? 10_000;
  let running: Promise<void> | undefined;
  let lastSlowAt = Number.NEGATIVE_INFINITY;
  // Deadlines every pass; stranded runs and expired keys less often (their answers change slowly).
  const slowEveryMs = Math.max(intervalMs, Math.min(10 * intervalMs, strandedAfterMs));
  const tick = () => {
    if (running) return;
    const slow = performance.now() - lastSlowAt >= slowEveryMs;
    if (slow) lastSlowAt = performance.now();
    running = (async () => {
      const expired = await expireRuns(sql);
      if (expired.length > 0) logger.info("runs timed out", { runs: expired.length });
      if (slow) {
        await markStrandedRuns(sql, { afterMs: strandedAfterMs });
        await pruneIdempotencyKeys(sql);
      }
    })()
      .catch((error) => logger.warn("sweep failed", { error: coerceError(error).message }))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
