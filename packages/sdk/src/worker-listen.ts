import { type WatchedListen, watchedListen } from "@runifold/store";
import type postgres from "postgres";
import { CHANNELS } from "./channels";
import { coerceError } from "./errors";
import type { Logger } from "./logger";

export type WorkerListenOptions = {
  /** Workflow keys this worker serves: a wake-up for another key is not ours. */
  served: Set<string>;
  /** Claim what is claimable now. */
  wake: () => void;
  /** Abort the attempt of a cancelled run this worker holds. */
  cancel: (runId: string) => void;
  /** Runs this worker is executing now. */
  activeRunIds: () => string[];
  logger: Logger;
  heartbeatMs?: number;
};

/**
 * The worker's wake-up and cancel channels on a watched LISTEN (@runifold/store watchedListen), so
 * they survive a failover or a killed backend instead of leaving the worker on its poll. After a
 * re-subscribe the worker catches up on what the gap hid: a drain for the wake-ups and, for the
 * cancels, one read of which of its running runs were cancelled meanwhile.
 */
export function listenForWorker(sql: postgres.Sql, options: WorkerListenOptions): WatchedListen {
  const { logger } = options;
  const catchUpCancels = async () => {
    const ids = options.activeRunIds();
    if (ids.length === 0) return;
    const rows = await sql<{ id: string }[]>`SELECT id FROM runs WHERE id = ANY(${ids}::uuid[]) AND status = 'cancelled'`;
    for (const row of rows) options.cancel(row.id);
  };
  return watchedListen(
    sql,
    {
      [CHANNELS.wake]: (payload) => {
        if (options.served.has(payload)) options.wake();
      },
      [CHANNELS.cancel]: (runId) => options.cancel(runId),
    },
    {
      heartbeatMs: options.heartbeatMs,
      timeoutMs: options.heartbeatMs,
      onListen(resubscribed) {
        options.wake();
        if (!resubscribed) return;
        logger.info("LISTEN re-subscribed; catching up on wake-ups and cancels");
        catchUpCancels().catch((error) =>
          logger.warn("cancel catch-up after re-subscribe failed", { error: coerceError(error).message }),
        );
      },
      onReplace: (reason) => logger.warn("LISTEN connection replaced", { reason }),
    },
  );
}
