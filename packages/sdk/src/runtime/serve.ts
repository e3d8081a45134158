import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Sql } from "@runifold/store";
import { describeDefinition } from "../definitions/describe";
import { type PublishOutcome, publishDefinitions } from "../definitions/publish";
import type { Logger } from "../logger";
import type { WorkerObserver } from "../telemetry/observer";
import { createWebhookDeliveryWorkflows } from "../webhooks/delivery-workflow";
import { tagLegacySecrets } from "../webhooks/tag-legacy-secrets";
import type { WorkerWebhooks } from "../webhooks/worker-config";
import { createWorker, type Worker } from "../worker";
import { type AnyWorkflow, createRegistry } from "../workflow";
import { assertSchemaSupported, readSchemaStatus } from "./schema-check";

export type ServeOptions = {
  sql: Sql;
  /** Claims' and lease renewals' pool (WorkerOptions.leaseSql); default `sql`. */
  leaseSql?: Sql;
  workflows: AnyWorkflow[];
  logger: Logger;
  concurrency?: number;
  leaseMs?: number;
  pollMs?: number;
  workerId?: string;
  /** Told about claims, attempts and steps (metrics). */
  observer?: WorkerObserver;
  /** WorkerOptions.tenantShare: the share of the fleet's slots one tenant may hold. */
  tenantShare?: number;
  /**
   * Also serve the built-in webhook delivery workflows of this key (docs/webhooks.md), published like
   * any other definition; false or absent: not served (runifold-worker turns it on when it has a key,
   * unless --no-webhooks).
   */
  webhooks?: WorkerWebhooks;
  /** PublishOptions.acceptCodeChange: keys whose changed code may be published under live runs. */
  acceptCodeChange?: readonly string[];
};

export type ServedWorker = { worker: Worker; published: PublishOutcome[] };

/**
 * What a worker process does before it claims anything: refuse a store older than this SDK,
 * publish every definition it serves (refused, with "bump the version", when a live version would
 * change meaning), then start the claim loop. Publishing first means a run is never served by a
 * worker whose definition the web tier has not seen.
 */
export async function serveWorkflows(options: ServeOptions): Promise<ServedWorker> {
  const { sql, logger } = options;
  const status = await readSchemaStatus(sql);
  assertSchemaSupported(status);
  if (status.unknown.length > 0) {
    logger.warn("the store's schema is newer than this SDK; upgrade @runifold/sdk when you can", { newer: status.unknown });
  }
  const workflows = options.webhooks
    ? [...options.workflows, ...createWebhookDeliveryWorkflows({ sql, ...options.webhooks })]
    : options.workflows;
  const registry = createRegistry(workflows);
  const workerId = options.workerId ?? `${os.hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const published = await publishDefinitions(sql, workflows.map(describeDefinition), workerId, {
    servesCode: true,
    acceptCodeChange: options.acceptCodeChange,
  });
  for (const outcome of published) {
    logger.info("definition", { ...outcome });
    // Said louder: runs under way now continue on code they did not start with.
    if (outcome.code === "accepted")
      logger.warn("changed code published while runs of this version are live (accepted by RUNIFOLD_ACCEPT_CODE_CHANGE)", {
        definition: outcome.key,
      });
  }
  if (options.webhooks) {
    const { keyMaterial } = options.webhooks;
    // Best effort: a worker that cannot tag still serves (the plain name keeps such deliveries going).
    await tagLegacySecrets(sql, keyMaterial, logger).catch((error: Error) =>
      logger.warn("webhooks: could not tag secrets sealed before key tags", { error: error.message }),
    );
  }
  const worker = createWorker({
    sql,
    leaseSql: options.leaseSql,
    registry,
    logger,
    workerId,
    concurrency: options.concurrency,
    leaseMs: options.leaseMs,
    pollMs: options.pollMs,
    observer: options.observer,
    tenantShare: options.tenantShare,
  });
  await worker.start();
  return { worker, published };
}
