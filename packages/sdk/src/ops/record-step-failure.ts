import { jsonParam, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { LEASE_GUARD, type Lease } from "./types";

/** What the retry state of a step holds (`run_steps` key `retry:<key>`). */
export type StepRetryState = { failures: number; retryAt: string; lastError: { name: string; message: string } };

export type StepFailureOutcome = { held: false } | { held: true; retryAt: Date };

/**
 * Stores that one execution of step `key` failed and when the next may start, in one statement,
 * so the retry count survives a crash (a new attempt continues the count instead of starting from
 * zero). With `park`, the same statement parks the run `sleeping` until then: a long backoff frees
 * the worker's slot and any worker resumes the run (policy/retry-policy.ts).
 */
export async function recordStepFailure(
  sql: SqlHandle,
  lease: Lease,
  failure: { key: string; failures: number; error: { name: string; message: string }; delayMs: number; park: boolean },
): Promise<StepFailureOutcome> {
  const rows = await sql.unsafe<{ id: string; retry_at: Date }[]>(
    `WITH retry AS (
       SELECT now() + make_interval(secs => $6::float8 / 1000.0) AS at
     ), renewed AS (
       UPDATE runs SET checkpoints = checkpoints + 1, lost_attempts = 0, updated_at = now(),
              status = CASE WHEN $7 THEN 'sleeping' ELSE status END,
              lease_owner = CASE WHEN $7 THEN NULL ELSE lease_owner END,
              lease_expires_at = CASE WHEN $7 THEN NULL ELSE now() + make_interval(secs => $4 / 1000.0) END,
              claimable_at = CASE WHEN $7 THEN (SELECT at FROM retry) END,
              wait_detail = CASE WHEN $7 THEN jsonb_build_object('timer', jsonb_build_object(
                'key', 'retry:' || $5::text, 'wakeAt', (SELECT at FROM retry))) ELSE wait_detail END
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING id
     ), state AS (
       INSERT INTO run_steps (run_id, key, output)
       SELECT id, 'retry:' || $5, jsonb_build_object('failures', $8::int, 'retryAt', (SELECT at FROM retry), 'lastError', $9::text::jsonb)
       FROM renewed
       ON CONFLICT (run_id, key) DO UPDATE SET output = EXCLUDED.output, completed_at = now()
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'step_failed', jsonb_build_object('key', $5::text, 'failures', $8::int, 'retryInMs', $6::float8) FROM renewed
     )
     SELECT id, (SELECT at FROM retry) AS retry_at,
            CASE WHEN $7 THEN pg_notify('${CHANNELS.task}', id::text) END AS notified
     FROM renewed`,
    [
      lease.runId,
      lease.workerId,
      lease.attempt,
      lease.leaseMs,
      failure.key,
      failure.delayMs,
      failure.park,
      failure.failures,
      jsonParam(failure.error),
    ],
  );
  const row = rows[0];
  return row ? { held: true, retryAt: new Date(row.retry_at) } : { held: false };
}
