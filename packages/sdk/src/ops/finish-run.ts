import type { SqlHandle } from "../../../../db/client";
import { jsonParam, PREPARED } from "../../../../db/sql";
import { CHANNELS } from "../channels";
import type { FailureCause } from "../failure-cause";
import type { WorkflowResult } from "../workflow";
import { LEASE_GUARD, type Lease } from "./types";

export type PublicError = { code: number; message: string; data?: unknown };

export type RunOutcome =
  | { status: "completed"; result: WorkflowResult }
  | { status: "failed"; error: PublicError; cause?: FailureCause };

/**
 * Moves a leased run to its terminal state with the terminal event (which carries the result) in
 * the same statement. Refused (false) if the lease is no longer held, e.g. the run was cancelled
 * while its last step ran: the late result is dropped. A failure's private cause goes to
 * `runs.failure` (operators), its public error to the event (clients). The caller has checked that
 * the outcome is serialisable and within the limits (executor.ts), so only the store can fail here.
 */
export async function finishRun(sql: SqlHandle, lease: Lease, outcome: RunOutcome): Promise<boolean> {
  const payload = outcome.status === "completed" ? { result: outcome.result } : { error: outcome.error };
  const message = outcome.status === "failed" ? outcome.error.message : null;
  const cause = outcome.status === "failed" && outcome.cause ? jsonParam(outcome.cause) : null;
  const rows = await sql.unsafe(
    `WITH finished AS (
       UPDATE runs SET status = $4, status_message = $5, claimable_at = NULL, lease_expires_at = NULL,
              wait_detail = NULL, failure = $7::text::jsonb, finished_at = now(), updated_at = now()
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING id
     ), history AS (
       INSERT INTO run_events (run_id, type, payload) SELECT id, $4, $6::text::jsonb FROM finished
     )
     SELECT pg_notify('${CHANNELS.task}', id::text) FROM finished`,
    [lease.runId, lease.workerId, lease.attempt, outcome.status, message, jsonParam(payload), cause],
    PREPARED,
  );
  return rows.length === 1;
}
