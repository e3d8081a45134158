import os from "node:os";
import { createLogger } from "@runifold/sdk";
import { purgeAuditTrail } from "../admin";
import { readEnv } from "../env";
import { cancelAbandonedRounds } from "../mcp";
import { purgeExpiredOAuthState } from "../oauth";
import { purgeRetentionHistory, startRetentionTimer } from "../retention";
import { getSql } from "./db";

/**
 * The retention cleaner on the web process's pool, every RUNIFOLD_RETENTION_INTERVAL_MS. Every web
 * instance tries; the cleaner's advisory lock lets one act per round (docs/retention.md). Workers
 * are a team's own `runifold-worker` processes and know nothing of retention, so the server runs it.
 * After each pass: expired OAuth state, audit events older than RUNIFOLD_AUDIT_RETENTION_DAYS,
 * tombstones older than RUNIFOLD_TOMBSTONE_RETENTION_DAYS and the cleaner's passes older than 90 days,
 * and the runs of MRTR rounds their clients abandoned (lib/mcp cancelAbandonedRounds, review3 D3).
 */
export function startWebRetention(): void {
  const env = readEnv();
  startRetentionTimer({
    sql: getSql(),
    holder: `web:${os.hostname()}:${process.pid}`,
    intervalMs: env.RUNIFOLD_RETENTION_INTERVAL_MS,
    logger: createLogger("retention", env.RUNIFOLD_LOG_LEVEL),
    alsoPurge: [
      { name: "oauth", purge: () => purgeExpiredOAuthState(getSql()) },
      { name: "audit", purge: () => purgeAuditTrail(getSql(), { retentionDays: env.RUNIFOLD_AUDIT_RETENTION_DAYS }) },
      { name: "mrtr", purge: () => cancelAbandonedRounds(getSql()) },
      {
        name: "tombstones",
        purge: () => purgeRetentionHistory(getSql(), { tombstoneRetentionDays: env.RUNIFOLD_TOMBSTONE_RETENTION_DAYS }),
      },
    ],
  });
}
