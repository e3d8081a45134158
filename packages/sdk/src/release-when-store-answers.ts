import type { SqlHandle } from "@runifold/store";
import { releaseRun } from "./ops/release-run";
import type { Lease } from "./ops/types";
import { isTransientStoreError } from "./transient-errors";

/**
 * After a store outage ended an attempt, hands the run back (queued, no lost attempt) as soon as
 * the store answers: the outage is not the run's fault (ops/release-run.ts). Gives up once someone
 * else holds the run (the release is fenced) or after a while; the lease expiry covers the rest.
 */
export async function releaseWhenStoreAnswers(deps: { sql: SqlHandle }, lease: Lease, giveUpAfterMs = 5 * 60_000): Promise<void> {
  const until = performance.now() + giveUpAfterMs;
  for (let wait = 200; performance.now() < until; wait = Math.min(wait * 2, 5_000)) {
    await new Promise((resolve) => setTimeout(resolve, wait).unref());
    try {
      await releaseRun(deps.sql, lease, "store unavailable");
      return;
    } catch (error) {
      if (!isTransientStoreError(error)) return;
    }
  }
}
