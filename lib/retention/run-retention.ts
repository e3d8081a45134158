import { coerceError } from "@runifold/sdk";
import type postgres from "postgres";
import { bumpFence, currentFenceEpoch, tryRetentionLock } from "./lock";
import { countPurgeable, purgeBatch } from "./purge-batch";
import { openRetentionRun, updateRetentionRun } from "./retention-log";

export type RetentionHooks = {
  /** Test hook: the cleaner holds the lock and its epoch and has not deleted anything yet. */
  afterLock?: (info: { epoch: number; backendPid: number }) => Promise<void>;
  /** Called after every committed batch (measurements, progress output). */
  afterBatch?: (info: { batch: number; purged: number; ms: number }) => void | Promise<void>;
};

export type RetentionOptions = {
  /** Who is cleaning (worker id, `cli:host:pid`): recorded on the fence and in retention_runs. */
  holder: string;
  /** Runs per transaction. Bounds how long any batch holds row locks. */
  batchSize?: number;
  dryRun?: boolean;
  /** The instant retention is measured against (tests); default: the database's now(). */
  now?: Date;
  /** Stop after this many batches even if more is eligible (the next pass continues). */
  maxBatches?: number;
  /** Stops between batches (worker shutdown); what was purged so far stays purged and recorded. */
  signal?: AbortSignal;
  hooks?: RetentionHooks;
};

export type RetentionReport =
  | { status: "skipped"; reason: string }
  | {
      status: "completed" | "fenced" | "failed";
      /** The retention_runs row. */
      id: string;
      epoch: number;
      holder: string;
      dryRun: boolean;
      /** Runs purged (dry run: runs that would be purged). */
      purged: number;
      events: number;
      nonces: number;
      batches: number;
      durationMs: number;
      longestBatchMs: number;
      error?: string;
    };

export const DEFAULT_RETENTION_BATCH = 500;

/**
 * One cleaner pass: take the lock or step aside, take a fencing epoch, then purge terminal runs
 * past their tenant's retention in short fenced batches until none remain. Never throws for a
 * failed batch — the outcome is reported and recorded — so periodic callers cannot crash on it.
 */
export async function runRetention(sql: postgres.Sql, options: RetentionOptions): Promise<RetentionReport> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_RETENTION_BATCH));
  const dryRun = options.dryRun ?? false;
  const lock = await tryRetentionLock(sql);
  if (!lock) return { status: "skipped", reason: "another cleaner holds the lock" };
  const started = performance.now();
  try {
    // A dry run deletes nothing, so it takes no epoch: it must not fence out anyone.
    const epoch = dryRun ? await currentFenceEpoch(sql) : await bumpFence(sql, options.holder);
    const id = await openRetentionRun(sql, { epoch, holder: options.holder, dryRun });
    const report = { id, epoch, holder: options.holder, dryRun, purged: 0, events: 0, nonces: 0, batches: 0, longestBatchMs: 0 };
    const finish = async (status: "completed" | "fenced" | "failed", error?: string): Promise<RetentionReport> => {
      const durationMs = Math.round(performance.now() - started);
      await updateRetentionRun(sql, { id, purged: report.purged, batches: report.batches, final: { status, durationMs } }).catch(
        () => {},
      );
      return { status, ...report, durationMs, ...(error ? { error } : {}) };
    };
    try {
      await options.hooks?.afterLock?.({ epoch, backendPid: lock.backendPid });
      if (dryRun) {
        const counts = await countPurgeable(sql, { now: options.now });
        report.purged = counts.runs;
        report.nonces = counts.nonces;
        return await finish("completed");
      }
      for (let batch = 1; batch <= (options.maxBatches ?? Number.POSITIVE_INFINITY); batch++) {
        if (options.signal?.aborted) break;
        const t0 = performance.now();
        const outcome = await purgeBatch(sql, { epoch, batchSize, now: options.now });
        if (outcome.fenced) return await finish("fenced", "a newer cleaner took over (fencing epoch changed)");
        const ms = performance.now() - t0;
        report.longestBatchMs = Math.max(report.longestBatchMs, Math.round(ms));
        if (outcome.purged === 0 && outcome.nonces === 0) break;
        report.batches += 1;
        report.purged += outcome.purged;
        report.events += outcome.events;
        report.nonces += outcome.nonces;
        await updateRetentionRun(sql, { id, purged: report.purged, batches: report.batches });
        await options.hooks?.afterBatch?.({ batch, purged: outcome.purged, ms });
        if (outcome.purged < batchSize && outcome.nonces < batchSize) break;
      }
      return await finish("completed");
    } catch (error) {
      return await finish("failed", coerceError(error).message);
    }
  } finally {
    await lock.release();
  }
}
