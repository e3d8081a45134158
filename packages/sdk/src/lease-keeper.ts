import type { SqlHandle } from "@runifold/store";
import { coerceError, LeaseExpiredLocally, LeaseLost } from "./errors";
import type { Logger } from "./logger";
import { renewLease } from "./ops/renew-lease";
import type { Lease } from "./ops/types";

/**
 * Keeps one attempt's lease: renews it every third of the lease while the attempt runs, and gives
 * the run up locally once the lease has expired by this worker's own (monotonic) count — a worker
 * cut off from the store stops its step bodies (their AbortSignal fires) instead of running them
 * side by side with whichever worker took the run over (docs/architecture.md, "Workers").
 *
 * The local deadline is measured from when the last successful renewal was *sent* (the store set
 * the new expiry no earlier than that), minus a safety margin, so it never outlives the store's.
 */
export function keepLease(params: {
  sql: SqlHandle;
  lease: Lease;
  logger: Logger;
  /** Called once when the lease is lost: the store refused a renewal, or it expired locally. */
  onLost(reason: LeaseLost): void;
}): { stop(): void } {
  const { sql, lease, logger, onLost } = params;
  const margin = Math.min(1_000, Math.floor(lease.leaseMs / 10));
  let stopped = false;
  let inFlight = false;
  let expiry: NodeJS.Timeout | undefined;

  const lose = (reason: LeaseLost) => {
    if (stopped) return;
    stop();
    onLost(reason);
  };
  const armExpiry = (renewedSentAt: number) => {
    if (expiry) clearTimeout(expiry);
    const remaining = renewedSentAt + lease.leaseMs - margin - performance.now();
    expiry = setTimeout(
      () => lose(new LeaseExpiredLocally("lease expired: the store could not be reached to renew it")),
      Math.max(0, remaining),
    );
  };
  // The claim itself granted the lease a moment ago.
  armExpiry(performance.now());

  const heartbeat = setInterval(
    () => {
      if (inFlight || stopped) return;
      inFlight = true;
      const sentAt = performance.now();
      renewLease(sql, lease)
        .then(
          (held) => {
            if (!held) lose(new LeaseLost("lease lost or run cancelled"));
            else if (!stopped) armExpiry(sentAt);
          },
          (error) => logger.warn("lease renewal failed", { runId: lease.runId, error: coerceError(error).message }),
        )
        .finally(() => {
          inFlight = false;
        });
    },
    Math.max(50, Math.floor(lease.leaseMs / 3)),
  );

  function stop() {
    stopped = true;
    clearInterval(heartbeat);
    if (expiry) clearTimeout(expiry);
  }
  return { stop };
}
