import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import type { InputRequest, InputResponse } from "../workflow";
import { lockLeasedRun } from "./transaction";
import { LEASE_GUARD, type Lease } from "./types";

export type InputWaitOutcome =
  | { kind: "answered"; responses: Record<string, InputResponse> }
  | { kind: "timed_out"; keys: string[] }
  | { kind: "suspended" }
  | { kind: "lease_lost" };

/** A timeout for new requests: the deadline is the database's now() + timeoutMs; `answer` null = fail. */
export type InputDeadline = { timeoutMs: number; answerJson: string | null };

/**
 * The durable half of ctx.requestInput(s). Under the run's row lock (shared with provideInput):
 * record any new keyed requests (with their deadline), answer every request whose deadline passed
 * with its default answer, and then either hand all answers back, report a timeout (closing the
 * expired requests: `answered_at` set, `response` NULL), or park the run in `waiting_input` —
 * claimable at the earliest deadline, so a worker comes back to apply it even if nobody answers.
 * `wait_detail.input.keys` names the keys this wait still needs: provideInput resumes the run once
 * those are answered, whatever else the run asked before.
 */
export async function suspendForInput(
  sql: SqlHandle,
  lease: Lease,
  requests: Record<string, InputRequest>,
  deadline?: InputDeadline,
): Promise<InputWaitOutcome> {
  const keys = Object.keys(requests);
  return inTransaction(sql, async (tx) => {
    if (!(await lockLeasedRun(tx, lease))) return { kind: "lease_lost" } as const;
    await tx.unsafe(
      `WITH added AS (
         INSERT INTO run_inputs (run_id, key, request, deadline_at, on_timeout)
         SELECT $1, r.key, r.value,
                CASE WHEN $3::float8 IS NOT NULL THEN now() + make_interval(secs => $3::float8 / 1000.0) END, $4::text::jsonb
         FROM jsonb_each($2::text::jsonb) AS r(key, value)
         ON CONFLICT (run_id, key) DO NOTHING
         RETURNING run_id, key
       )
       INSERT INTO run_events (run_id, type, payload) SELECT run_id, 'input_requested', jsonb_build_object('key', key) FROM added`,
      [lease.runId, jsonParam(requests), deadline?.timeoutMs ?? null, deadline?.answerJson ?? null],
    );
    const rows = await tx.unsafe<{ key: string; response: InputResponse | null; expired: boolean }[]>(
      `WITH defaulted AS (
         UPDATE run_inputs SET response = on_timeout, answered_by = 'timeout', answered_at = now()
         WHERE run_id = $1 AND key = ANY($2::text[]) AND response IS NULL AND deadline_at <= now() AND on_timeout IS NOT NULL
         RETURNING key, response
       ), history AS (
         INSERT INTO run_events (run_id, type, payload)
         SELECT $1, 'input_timed_out', jsonb_build_object('key', key, 'answered', true) FROM defaulted
       )
       SELECT i.key, coalesce(d.response, i.response) AS response, coalesce(i.deadline_at <= now(), false) AS expired
       FROM run_inputs i LEFT JOIN defaulted d ON d.key = i.key
       WHERE i.run_id = $1 AND i.key = ANY($2::text[])`,
      [lease.runId, keys],
    );
    const pending = rows.filter((row) => row.response === null);
    const expired = pending.filter((row) => row.expired).map((row) => row.key);
    if (expired.length > 0) {
      // The run fails — or the workflow catches the timeout and moves on: either way nobody will read
      // an answer to these any more. They are closed (answered_at, no response), so clients and
      // operators stop being asked and the run's next wait resumes on its own keys (provide-input.ts).
      await tx.unsafe(
        `WITH closed AS (
           UPDATE run_inputs SET answered_by = 'timeout', answered_at = now()
           WHERE run_id = $1 AND key = ANY($2::text[]) AND response IS NULL AND answered_at IS NULL
           RETURNING key
         )
         INSERT INTO run_events (run_id, type, payload)
         SELECT $1, 'input_timed_out', jsonb_build_object('key', key, 'answered', false) FROM closed`,
        [lease.runId, expired],
      );
      return { kind: "timed_out", keys: expired } as const;
    }
    if (pending.length === 0) {
      return { kind: "answered", responses: Object.fromEntries(rows.map((row) => [row.key, row.response as InputResponse])) };
    }
    await tx.unsafe(
      `WITH next_deadline AS (
         SELECT min(deadline_at) AS at FROM run_inputs WHERE run_id = $1 AND key = ANY($4::text[]) AND response IS NULL
       )
       UPDATE runs SET status = 'waiting_input', claimable_at = (SELECT at FROM next_deadline),
              lease_owner = NULL, lease_expires_at = NULL, checkpoints = checkpoints + 1, lost_attempts = 0, updated_at = now(),
              wait_detail = jsonb_build_object('input', jsonb_strip_nulls(jsonb_build_object(
                'keys', $5::text::jsonb, 'since', now(), 'deadline', (SELECT at FROM next_deadline))))
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING pg_notify('${CHANNELS.task}', id::text)`,
      [lease.runId, lease.workerId, lease.attempt, keys, jsonParam(pending.map((row) => row.key))],
    );
    return { kind: "suspended" } as const;
  });
}
