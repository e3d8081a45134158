import type { WorkflowRegistry } from "@runifold/sdk";
import { createLogger, createWorker } from "@runifold/sdk";
import { createDb } from "../db/client";
import { resolveDatabaseUrl } from "../db/embedded/database-url";
import { readEnv } from "../lib/env";
import { type RetentionTimer, startRetentionTimer } from "../lib/retention";

/**
 * The body of every worker process: parse env, build a pool, start the loop, drain on the first
 * SIGTERM/SIGINT and exit at once on the second.
 */
export async function runWorkerProcess(registry: WorkflowRegistry): Promise<void> {
  const env = readEnv();
  const logger = createLogger("worker", env.RUNIFOLD_LOG_LEVEL);
  const concurrency = env.RUNIFOLD_WORKER_CONCURRENCY;
  const { sql } = createDb(resolveDatabaseUrl(env), { max: Math.min(concurrency, 8) + 2, name: "runifold-worker" });
  const worker = createWorker({
    sql,
    registry,
    logger,
    concurrency,
    leaseMs: env.RUNIFOLD_LEASE_MS,
    pollMs: env.RUNIFOLD_POLL_MS,
  });
  let retention: RetentionTimer | undefined;

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      logger.warn("second signal: exiting without draining", { signal });
      process.exit(130);
    }
    logger.info("draining", { signal });
    Promise.all([worker.stop(10_000), retention?.stop()])
      .then(() => sql.end({ timeout: 5 }))
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  await worker.start();
  // Every worker tries; the cleaner's advisory lock lets one act per round (see docs/retention.md).
  retention = startRetentionTimer({ sql, holder: worker.id, intervalMs: env.RUNIFOLD_RETENTION_INTERVAL_MS, logger });
}
