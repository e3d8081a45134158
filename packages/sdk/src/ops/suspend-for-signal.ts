import type { SqlHandle } from "../../../../db/client";
import { inTransaction } from "../../../../db/client";
import { jsonParam } from "../../../../db/sql";
import { CHANNELS } from "../channels";
import { lockLeasedRun } from "./transaction";
import { LEASE_GUARD, type Lease } from "./types";

export type SignalWaitOutcome =
  | { kind: "received"; payload: unknown }
  | { kind: "timed_out" }
  | { kind: "suspended" }
  | { kind: "lease_lost" };

/**
 * The durable half of ctx.waitForSignal. Under the run's row lock (shared with sendSignal): take the
 * oldest unconsumed signal of `name` and memoize it as step `stepKey`; else, past the deadline,
 * memoize a timeout; else park the run in `waiting_signal` (claimable again at the deadline).
 */
export async function suspendForSignal(
  sql: SqlHandle,
  lease: Lease,
  params: { stepKey: string; name: string; deadline?: Date },
): Promise<SignalWaitOutcome> {
  return inTransaction(sql, async (tx) => {
    if (!(await lockLeasedRun(tx, lease))) return { kind: "lease_lost" } as const;
    const signal = await tx.unsafe<{ id: number; payload: unknown }[]>(
      `UPDATE run_signals SET consumed_at = now()
       WHERE id = (SELECT id FROM run_signals WHERE run_id = $1 AND name = $2 AND consumed_at IS NULL ORDER BY id LIMIT 1)
       RETURNING id, payload`,
      [lease.runId, params.name],
    );
    const received = signal[0];
    if (received || (params.deadline && params.deadline.getTime() <= Date.now())) {
      const output = received ? { received: true, payload: received.payload } : { received: false };
      await tx.unsafe(
        `WITH step AS (INSERT INTO run_steps (run_id, key, output) VALUES ($1, $2, $3::text::jsonb) RETURNING run_id)
         INSERT INTO run_events (run_id, type, payload)
         SELECT run_id, $4, jsonb_build_object('name', $5::text) FROM step`,
        [lease.runId, params.stepKey, jsonParam(output), received ? "signal_received" : "signal_timed_out", params.name],
      );
      return received ? ({ kind: "received", payload: received.payload } as const) : ({ kind: "timed_out" } as const);
    }
    await tx.unsafe(
      `WITH parked AS (
         UPDATE runs SET status = 'waiting_signal', claimable_at = $4, lease_owner = NULL, lease_expires_at = NULL,
                checkpoints = checkpoints + 1, updated_at = now(),
                wait_detail = jsonb_build_object('signal', jsonb_strip_nulls(jsonb_build_object(
                  'name', $5::text, 'since', now(), 'deadline', $4::timestamptz)))
         WHERE id = $1 AND ${LEASE_GUARD} RETURNING id
       )
       INSERT INTO run_events (run_id, type, payload) SELECT id, 'waiting_signal', jsonb_build_object('name', $5::text) FROM parked`,
      [lease.runId, lease.workerId, lease.attempt, params.deadline ?? null, params.name],
    );
    await tx.unsafe(`SELECT pg_notify('${CHANNELS.task}', $1)`, [lease.runId]);
    return { kind: "suspended" } as const;
  });
}
