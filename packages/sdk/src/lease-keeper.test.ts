import type { SqlHandle } from "@runifold/store";
import { describe, expect, it } from "vitest";
import { LeaseExpiredLocally, type LeaseLost } from "./errors";
import { keepLease } from "./lease-keeper";
import { createLogger } from "./logger";

/**
 * The lease's local deadline (lease-keeper.ts) must never outlive the store's: it counts from when
 * the claim was sent, and check() enforces it synchronously, whatever the expiry timer is doing. The
 * store is never reached here (the first renewal is due a third of a lease in, and each keeper is
 * stopped long before), so no connection is given.
 */
const LEASE_MS = 30_000;
const noStore = {} as SqlHandle;
const lease = { runId: "run", workerId: "worker", attempt: 1, leaseMs: LEASE_MS };
const logger = createLogger("lease-test", "error");

function keeper(grantedAt?: number) {
  const lost: LeaseLost[] = [];
  const kept = keepLease({ sql: noStore, lease, logger, onLost: (reason) => lost.push(reason), grantedAt });
  return { ...kept, lost };
}

describe("the lease keeper's local deadline", () => {
  it("counts from when the claim was sent: a claim answered a lease late is lost at the first check", () => {
    const late = keeper(performance.now() - LEASE_MS);
    late.check();
    expect(late.lost).toHaveLength(1);
    expect(late.lost[0]).toBeInstanceOf(LeaseExpiredLocally);
    late.check();
    expect(late.lost).toHaveLength(1); // lost once
    late.stop();
  });

  it("holds a fresh claim", () => {
    const fresh = keeper(performance.now());
    fresh.check();
    expect(fresh.lost).toEqual([]);
    fresh.stop();
  });

  it("is enforced by check() while the expiry timer is overdue behind a blocked event loop", () => {
    // Granted just under a lease ago minus the margin (1 s): 50 ms of lease left by the local count.
    const nearly = keeper(performance.now() - (LEASE_MS - 1_000 - 50));
    nearly.check();
    expect(nearly.lost).toEqual([]);
    const until = performance.now() + 80;
    while (performance.now() < until) {
      // The loop is blocked: the expiry timer cannot fire.
    }
    nearly.check();
    expect(nearly.lost).toHaveLength(1);
    nearly.stop();
  });
});
