import { jsonParam, PREPARED, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import type { FailureCause } from "../failure-cause";
import type { WorkflowResult } from "../workflow";
import { isPool, notifyAfterCommit } from "./notify-after-commit";
import type { Lease } from "./types";

export type PublicError = { code: number; message: string; data?: unknown };

export type RunOutcome =
  | { status: "completed"; result: WorkflowResult }
  | { status: "failed"; error: PublicError; cause?: FailureCause };

/**
 * Moves leased runs to their terminal states, each with its terminal event (which carries the
 * result), in one statement: the worker coalesces concurrent attempts' results (write-coalescer.ts).
 * A run whose lease is no longer held (e.g. cancelled while its last step ran) is left alone and
 * answers false: the late result is dropped. A failure's private cause goes to `runs.failure`
 * (operators), its public error to the event (clients). The caller has checked that each outcome is
 * serialisable and within the limits (executor.ts), so only the store can fail here.
 *
 * One NOTIFY per batch, its payload the finished runs' ids separated by spaces (CHANNELS.task: a
 * listener splits it); at most 64 ids, far below NOTIFY's 8000-byte payload limit. On a pool it
 * follows the commit (notify-after-commit.ts); inside a caller's transaction it is sent at commit.
 */
export async function finishRuns(sql: SqlHandle, items: { lease: Lease; outcome: RunOutcome }[]): Promise<boolean[]> {
  if (items.length === 0) return [];
  const pool = isPool(sql);
  const rows = await sql.unsafe<{ id: string }[]>(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS i(run_id, worker, attempt, status, message, payload, failure)
     ), finished AS (
       UPDATE runs r SET status = i.status, status_message = i.message, claimable_at = NULL, lease_expires_at = NULL,
              wait_detail = NULL, failure = i.failure::jsonb, finished_at = now(), updated_at = now()
       FROM input i
       WHERE r.id = i.run_id AND r.status = 'leased' AND r.lease_owner = i.worker AND r.attempt = i.attempt
       RETURNING r.id, i.status, i.payload
     ), history AS (
       INSERT INTO run_events (run_id, type, payload) SELECT id, status, payload::jsonb FROM finished
     ), notified AS (
       SELECT pg_notify('${CHANNELS.task}', string_agg(id::text, ' ')) FROM finished WHERE $8::boolean HAVING count(*) > 0
     )
     SELECT f.id FROM finished f LEFT JOIN notified ON true`,
    [
      items.map((i) => i.lease.runId),
      items.map((i) => i.lease.workerId),
      items.map((i) => i.lease.attempt),
      items.map((i) => i.outcome.status),
      items.map((i) => (i.outcome.status === "failed" ? i.outcome.error.message : null)),
      items.map((i) => jsonParam(i.outcome.status === "completed" ? { result: i.outcome.result } : { error: i.outcome.error })),
      items.map((i) => (i.outcome.status === "failed" && i.outcome.cause ? jsonParam(i.outcome.cause) : null)),
      !pool,
    ],
    PREPARED,
  );
  if (pool && rows.length > 0) notifyAfterCommit(sql, CHANNELS.task, rows.map((row) => row.id).join(" "));
  const finished = new Set(rows.map((row) => row.id));
  return items.map((i) => finished.has(i.lease.runId));
}

/** One run's terminal write on its own (tests, and callers without a coalescer). */
export async function finishRun(sql: SqlHandle, lease: Lease, outcome: RunOutcome): Promise<boolean> {
  const [done] = await finishRuns(sql, [{ lease, outcome }]);
  return done === true;
}
