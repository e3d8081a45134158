import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { lockLeasedRun } from "./transaction";
import { LEASE_GUARD, type Lease, RENEW_AND_PROGRESS } from "./types";

export type SignalWaitOutcome =
  | { kind: "received"; payload: unknown }
  | { kind: "timed_out" }
  | { kind: "recorded"; output: unknown }
  | { kind: "suspended" }
  | { kind: "lease_lost" };

/**
 * The durable half of ctx.waitForSignal. Under the run's row lock (shared with sendSignal): take the
 * oldest unconsumed signal of `name` and memoize it as step `stepKey`; else, past the deadline,
 * memoize a timeout; else park the run in `waiting_signal` (claimable again at the deadline).
 *
 * The deadline is the database's `now() + timeoutMs` at the first wait, stored as the step
 * `deadline:<stepKey>` so every replay waits for the same instant, and compared with the database's
 * clock (one clock). Recording a delivery counts as a checkpoint, so the next attempt loads it even
 * after a crash; a delivery already recorded is returned as it was and consumes nothing.
 */
export async function suspendForSignal(
  sql: SqlHandle,
  lease: Lease,
  params: { stepKey: string; name: string; timeoutMs?: number; seq: number | null },
): Promise<SignalWaitOutcome> {
  return inTransaction(sql, async (tx) => {
    if (!(await lockLeasedRun(tx, lease))) return { kind: "lease_lost" } as const;
    const [found] = await tx.unsafe<
      { recorded: boolean; output: unknown; received: boolean; payload: unknown; deadline: Date | null; due: boolean }[]
    >(
      `WITH existing AS (
         SELECT output FROM run_steps WHERE run_id = $1 AND key = $2
       ), new_deadline AS (
         INSERT INTO run_steps (run_id, key, output)
         SELECT $1, 'deadline:' || $2, to_jsonb(extract(epoch FROM now()) * 1000 + $4::float8)
         WHERE $4::float8 IS NOT NULL
         ON CONFLICT (run_id, key) DO NOTHING
         RETURNING output
       ), deadline AS (
         SELECT to_timestamp(coalesce(
           (SELECT output FROM new_deadline),
           (SELECT output FROM run_steps WHERE run_id = $1 AND key = 'deadline:' || $2))::text::float8 / 1000.0) AS at
         WHERE $4::float8 IS NOT NULL
       ), consumed AS (
         UPDATE run_signals SET consumed_at = now()
         WHERE id = (SELECT id FROM run_signals WHERE run_id = $1 AND name = $3 AND consumed_at IS NULL ORDER BY id LIMIT 1)
           AND NOT EXISTS (SELECT 1 FROM existing)
         RETURNING payload
       )
       SELECT EXISTS (SELECT 1 FROM existing) AS recorded, (SELECT output FROM existing) AS output,
              EXISTS (SELECT 1 FROM consumed) AS received, (SELECT payload FROM consumed) AS payload,
              (SELECT at FROM deadline) AS deadline, coalesce((SELECT at <= now() FROM deadline), false) AS due`,
      [lease.runId, params.stepKey, params.name, params.timeoutMs ?? null],
    );
    if (!found) return { kind: "lease_lost" } as const;
    if (found.recorded) return { kind: "recorded", output: found.output } as const;
    if (found.received || found.due) {
      const output = found.received ? { received: true, payload: found.payload } : { received: false };
      await tx.unsafe(
        `WITH renewed AS (
           UPDATE runs SET checkpoints = checkpoints + 1, ${RENEW_AND_PROGRESS}
           WHERE id = $1 AND ${LEASE_GUARD} RETURNING id
         ), step AS (
           INSERT INTO run_steps (run_id, key, output, seq) SELECT id, $5, $6::text::jsonb, $9 FROM renewed
           ON CONFLICT (run_id, key) DO NOTHING RETURNING run_id
         )
         INSERT INTO run_events (run_id, type, payload) SELECT run_id, $7, jsonb_build_object('name', $8::text) FROM step`,
        [
          lease.runId,
          lease.workerId,
          lease.attempt,
          lease.leaseMs,
          params.stepKey,
          jsonParam(output),
          found.received ? "signal_received" : "signal_timed_out",
          params.name,
          params.seq,
        ],
      );
      return found.received ? ({ kind: "received", payload: found.payload } as const) : ({ kind: "timed_out" } as const);
    }
    await tx.unsafe(
      `WITH parked AS (
         UPDATE runs SET status = 'waiting_signal', claimable_at = $4, lease_owner = NULL, lease_expires_at = NULL,
                checkpoints = checkpoints + 1, lost_attempts = 0, updated_at = now(),
                wait_detail = jsonb_build_object('signal', jsonb_strip_nulls(jsonb_build_object(
                  'name', $5::text, 'since', now(), 'deadline', $4::timestamptz)))
         WHERE id = $1 AND ${LEASE_GUARD} RETURNING id
       ), history AS (
         INSERT INTO run_events (run_id, type, payload) SELECT id, 'waiting_signal', jsonb_build_object('name', $5::text) FROM parked
       )
       SELECT pg_notify('${CHANNELS.task}', id::text) FROM parked`,
      [lease.runId, lease.workerId, lease.attempt, found.deadline, params.name],
    );
    return { kind: "suspended" } as const;
  });
}
