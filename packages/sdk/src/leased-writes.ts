import type { SqlHandle } from "@runifold/store";
import { checkpointSteps, type StepCheckpoint } from "./ops/checkpoint-step";
import { finishRuns, type RunOutcome } from "./ops/finish-run";
import type { Lease } from "./ops/types";
import { isTransientStoreError } from "./transient-errors";
import { createCoalescer } from "./write-coalescer";

/**
 * The two writes every run makes on its hot path — a step's checkpoint and the terminal result —
 * as an attempt sees them: one lease, one answer (false: the lease is gone). A worker shares one
 * set across its attempts so that concurrent attempts' writes leave in one statement each.
 */
export type LeasedWrites = {
  checkpoint(lease: Lease, step: StepCheckpoint): Promise<boolean>;
  finish(lease: Lease, outcome: RunOutcome): Promise<boolean>;
};

/** Past this many rows a statement's parameters get large and one slow batch holds up the rest. */
const MAX_BATCH = 64;

/**
 * A batch that fails for a reason other than the connection is written again item by item: one
 * run's value the store refuses must fail that run alone, never the others (of any tenant) that
 * happened to share its statement.
 */
const retryAlone = (error: unknown) => !isTransientStoreError(error);

/** Coalesced writes on `sql` (a pool: batches from different attempts need no shared transaction). */
export function coalescedWrites(sql: SqlHandle): LeasedWrites {
  const keyOf = (item: { lease: Lease }) => item.lease.runId;
  const checkpoint = createCoalescer<{ lease: Lease; step: StepCheckpoint }, boolean>({
    flush: (items) => checkpointSteps(sql, items),
    keyOf,
    maxBatch: MAX_BATCH,
    retryAlone,
  });
  const finish = createCoalescer<{ lease: Lease; outcome: RunOutcome }, boolean>({
    flush: (items) => finishRuns(sql, items),
    keyOf,
    maxBatch: MAX_BATCH,
    retryAlone,
  });
  return {
    checkpoint: (lease, step) => checkpoint({ lease, step }),
    finish: (lease, outcome) => finish({ lease, outcome }),
  };
}
