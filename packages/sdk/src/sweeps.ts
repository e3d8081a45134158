import type postgres from "postgres";
import { coerceError } from "./errors";
import type { Logger } from "./logger";
import { admitConcurrencyWaiters } from "./ops/admit-concurrency-waiters";
import { expireRuns } from "./ops/expire-runs";
import { markStrandedRuns } from "./ops/mark-stranded-runs";
import { markExpiredLeases, promoteDueTimers } from "./ops/promote-due-runs";
import { pruneIdempotencyKeys } from "./ops/prune-idempotency-keys";
import { pruneWorkerRegistrations } from "./ops/register-worker";

/** How long a due timer may wait for a claim before it is queued with the backlog (promote-due-runs.ts). */
const TIMER_PROMOTION_MS = 1_000;

/**
 * The store's housekeeping, run by every worker (the statements skip rows another worker holds and
 * are idempotent, so no coordination is needed): runs past their own timeout end `failed` wherever
 * they are parked; expired leases are marked claimable and timers a claim left due for a second
 * are queued (promote-due-runs.ts); runs no online worker serves get a status message saying so;
 * expired idempotency keys and registrations a week past their last heartbeat are deleted;
 * set-aside runs whose concurrency slot has room are admitted (admit-concurrency-waiters.ts). A pass never overlaps the previous one, and a failure is logged,
 * never thrown: it must not take the worker down.
 */
export function startSweeps(params: {
  sql: postgres.Sql;
  logger: Logger;
  intervalMs: number;
  /** The versions this worker serves: it promotes their due timers (other versions' workers do theirs). */
  workflowKeys: string[];
  strandedAfterMs?: number;
}): {
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
      const lost = await markExpiredLeases(sql);
      if (lost > 0) logger.info("expired leases made claimable", { runs: lost });
      await promoteDueTimers(sql, { workflowKeys: params.workflowKeys, afterMs: TIMER_PROMOTION_MS });
      if (slow) {
        await markStrandedRuns(sql, { afterMs: strandedAfterMs });
        await pruneIdempotencyKeys(sql);
        await pruneWorkerRegistrations(sql);
        const admitted = await admitConcurrencyWaiters(sql);
        if (admitted > 0) logger.info("set-aside runs admitted to free concurrency slots", { runs: admitted });
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
