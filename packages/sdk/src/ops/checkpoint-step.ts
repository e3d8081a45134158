import { PREPARED, type SqlHandle } from "@runifold/store";
import type { Lease } from "./types";

export type StepCheckpoint = { key: string; outputJson: string; seq: number | null };

/**
 * Records finished steps, one per leased run, in one statement (the worker coalesces concurrent
 * attempts' checkpoints: write-coalescer.ts). Each step row is inserted only if its worker still
 * holds the lease, so a late result from a cancelled or reclaimed attempt leaves no trace.
 * `outputJson` was encoded (and size-checked) by the caller before any SQL ran (json-value.ts);
 * `seq` is its position for the non-determinism check. Answers, per item, whether the lease held.
 *
 * The run row's update changes no indexed column (`checkpoints`, `lost_attempts`, `updated_at`),
 * so Postgres can make it a HOT update (runs has fillfactor 80 for the room): the hot path of a
 * step touches none of runs' indexes. That is why a checkpoint no longer renews the lease (that
 * would move `claimable_at`, which two claim indexes hold); the lease keeper renews it instead,
 * every third of the lease (lease-keeper.ts). Progress still resets `lost_attempts`.
 */
export async function checkpointSteps(sql: SqlHandle, items: { lease: Lease; step: StepCheckpoint }[]): Promise<boolean[]> {
  if (items.length === 0) return [];
  const rows = await sql.unsafe<{ id: string }[]>(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[])
         AS i(run_id, worker, attempt, key, output, seq)
     ), progressed AS (
       UPDATE runs r SET checkpoints = r.checkpoints + 1, lost_attempts = 0, updated_at = now()
       FROM input i
       WHERE r.id = i.run_id AND r.status = 'leased' AND r.lease_owner = i.worker AND r.attempt = i.attempt
       RETURNING r.id, i.key, i.output, i.seq
     ), step AS (
       INSERT INTO run_steps (run_id, key, output, seq) SELECT id, key, output::jsonb, seq FROM progressed
       ON CONFLICT (run_id, key) DO NOTHING
       RETURNING run_id, key
     ), history AS (
       INSERT INTO run_events (run_id, type, payload) SELECT run_id, 'step_completed', jsonb_build_object('key', key) FROM step
     )
     SELECT id FROM progressed`,
    [
      items.map((i) => i.lease.runId),
      items.map((i) => i.lease.workerId),
      items.map((i) => i.lease.attempt),
      items.map((i) => i.step.key),
      items.map((i) => i.step.outputJson),
      items.map((i) => i.step.seq),
    ],
    PREPARED,
  );
  const held = new Set(rows.map((row) => row.id));
  return items.map((i) => held.has(i.lease.runId));
}

/** One step's checkpoint on its own (tests, and callers without a coalescer). False when the lease is gone. */
export async function checkpointStep(sql: SqlHandle, lease: Lease, step: StepCheckpoint): Promise<boolean> {
  const [held] = await checkpointSteps(sql, [{ lease, step }]);
  return held === true;
}
