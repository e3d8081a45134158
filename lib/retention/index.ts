// The retention control plane: fenced purge of terminal runs past their tenant's retention.

export { describeRetentionReport } from "./describe";
export { countPurgeable, NONCE_GRACE_MS, purgeBatch } from "./purge-batch";
export { purgeRetentionHistory } from "./purge-history";
export type { RetentionRunStatus } from "./retention-log";
export {
  DEFAULT_RETENTION_BATCH,
  type RetentionHooks,
  type RetentionOptions,
  type RetentionReport,
  runRetention,
} from "./run-retention";
export { type RetentionTimer, startRetentionTimer } from "./schedule";
