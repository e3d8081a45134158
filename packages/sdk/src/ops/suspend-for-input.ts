import type { SqlHandle } from "../../../../db/client";
import { inTransaction } from "../../../../db/client";
import { jsonParam } from "../../../../db/sql";
import { CHANNELS } from "../channels";
import type { InputRequest, InputResponse } from "../workflow";
import { lockLeasedRun } from "./transaction";
import { LEASE_GUARD, type Lease } from "./types";

export type InputWaitOutcome =
  | { kind: "answered"; responses: Record<string, InputResponse> }
  | { kind: "suspended" }
  | { kind: "lease_lost" };

/**
 * The durable half of ctx.requestInput(s). Under the run's row lock (shared with provideInput):
 * record any new keyed requests, and if some are still unanswered park the run in `waiting_input`;
 * if all were answered meanwhile, hand the answers back and keep running.
 */
export async function suspendForInput(
  sql: SqlHandle,
  lease: Lease,
  requests: Record<string, InputRequest>,
): Promise<InputWaitOutcome> {
  const keys = Object.keys(requests);
  return inTransaction(sql, async (tx) => {
    if (!(await lockLeasedRun(tx, lease))) return { kind: "lease_lost" } as const;
    await tx.unsafe(
      `WITH added AS (
         INSERT INTO run_inputs (run_id, key, request)
         SELECT $1, r.key, r.value FROM jsonb_each($2::text::jsonb) AS r(key, value)
         ON CONFLICT (run_id, key) DO NOTHING
         RETURNING run_id, key
       )
       INSERT INTO run_events (run_id, type, payload) SELECT run_id, 'input_requested', jsonb_build_object('key', key) FROM added`,
      [lease.runId, jsonParam(requests)],
    );
    const rows = await tx.unsafe<{ key: string; response: InputResponse | null }[]>(
      "SELECT key, response FROM run_inputs WHERE run_id = $1 AND key = ANY($2::text[])",
      [lease.runId, keys],
    );
    const pending = rows.filter((row) => row.response === null).map((row) => row.key);
    if (pending.length === 0) {
      return { kind: "answered", responses: Object.fromEntries(rows.map((row) => [row.key, row.response as InputResponse])) };
    }
    await tx.unsafe(
      `UPDATE runs SET status = 'waiting_input', claimable_at = NULL, lease_owner = NULL, lease_expires_at = NULL,
              checkpoints = checkpoints + 1, updated_at = now(),
              wait_detail = jsonb_build_object('input', jsonb_build_object('keys', $4::text::jsonb, 'since', now()))
       WHERE id = $1 AND ${LEASE_GUARD}
       RETURNING pg_notify('${CHANNELS.task}', id::text)`,
      [lease.runId, lease.workerId, lease.attempt, jsonParam(pending)],
    );
    return { kind: "suspended" } as const;
  });
}
