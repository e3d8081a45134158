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
 * The local deadline is measured from when the last successful renewal — or the claim — was *sent*
 * (the store set the expiry no earlier than that), minus a safety margin, so it never outlives the
 * store's. Measuring from when the answer arrived would not do: an answer read late (a busy event
 * loop, a slow network) would stretch the worker's deadline past the store's, and another worker
 * could begin a step the same instant this one does. For the same reason `check()` compares the
 * clock with the deadline synchronously before a step body starts: the expiry timer may be overdue
 * behind a blocked event loop.
 */
export function keepLease(params: {
  sql: SqlHandle;
  lease: Lease;
  logger: Logger;
  /** Called once when the lease is lost: the store refused a renewal, or it expired locally. */
  onLost(reason: LeaseLost): void;
  /** When the claim that granted this lease was sent (performance.now()); default now. */
  grantedAt?: number;
}): { stop(): void; check(): void } {
  const { sql, lease, logger, onLost } = params;
  const margin = Math.min(1_000, Math.floor(lease.leaseMs / 10));
  let stopped = false;
  let inFlight = false;
  let expiry: NodeJS.Timeout | undefined;
  let deadline = Number.POSITIVE_INFINITY;
  const expired = () => new LeaseExpiredLocally("lease expired: the store could not be reached to renew it");

  const lose = (reason: LeaseLost) => {
    if (stopped) return;
    stop();
    onLost(reason);
  };
  const armExpiry = (renewedSentAt: number) => {
    if (expiry) clearTimeout(expiry);
    deadline = renewedSentAt + lease.leaseMs - margin;
    expiry = setTimeout(() => lose(expired()), Math.max(0, deadline - performance.now()));
  };
  // The claim granted the lease: its expiry was set no earlier than the claim was sent.
  armExpiry(params.grantedAt ?? performance.now());

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
  function check() {
    if (!stopped && performance.now() >= deadline) lose(expired());
  }
  return { stop, check };
}
