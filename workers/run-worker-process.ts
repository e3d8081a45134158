import type { WorkflowRegistry } from "@runifold/sdk";
import { runWorker } from "@runifold/sdk";
import { resolveDatabaseUrl } from "@runifold/store/embedded";
import { readEnv } from "../lib/env";
import { startRetentionTimer } from "../lib/retention";

/**
 * An app-hosted worker process (tests and fault suites spawn it with their own registries): the
 * SDK's worker (schema check, publish, serve, drain on signals) with the embedded store's URL when
 * DATABASE_URL is unset, plus the retention cleaner timer. Teams run `runifold-worker` instead; in
 * the app, the web process runs the cleaner too (lib/server/retention.ts).
 */
export async function runWorkerProcess(registry: WorkflowRegistry): Promise<void> {
  const env = readEnv();
  const code = await runWorker({
    workflows: registry.all(),
    env: { ...process.env, DATABASE_URL: resolveDatabaseUrl(env) },
    // Every process tries; the cleaner's advisory lock lets one act per round (docs/retention.md).
    onServing: ({ sql, workerId, logger }) =>
      startRetentionTimer({ sql, holder: workerId, intervalMs: env.RUNIFOLD_RETENTION_INTERVAL_MS, logger }),
  });
  if (code !== undefined) process.exit(code);
}
