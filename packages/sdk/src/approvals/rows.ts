import type { SqlHandle } from "@runifold/store";
import type { NormalizedPolicy } from "./policy";
import type { ApprovalDecision } from "./receipt";
import { APPROVAL_SETTLE_BUCKETS } from "./settle-stats";

/** An approval row as the ops read it (times as ISO strings; `escalation_due` and `expired` by the store's clock). */
export type ApprovalRow = {
  run_id: string;
  key: string;
  tenant_id: string;
  message: string;
  details: unknown;
  requested_schema: unknown;
  policy: NormalizedPolicy;
  args_digest: string;
  details_digest: string;
  policy_digest: string;
  excluded_operator_ids: string[];
  status: "open" | "approved" | "rejected" | "expired";
  outcome: "approved" | "rejected" | "expired" | null;
  opened_at: string;
  expires_at: string | null;
  escalates_at: string | null;
  escalated_at: string | null;
  settled_at: string | null;
  /** The next reminder (policy.remind), by the store's clock; null without reminders. */
  next_remind_at: string | null;
  receipt: string | null;
  escalation_due: boolean;
  expired: boolean;
  remind_due: boolean;
};

const COLUMNS = `run_id, key, tenant_id, message, details, requested_schema, policy, args_digest, details_digest,
  policy_digest, excluded_operator_ids::text[] AS excluded_operator_ids, status, outcome,
  to_char(opened_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS opened_at,
  to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at,
  to_char(escalates_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS escalates_at,
  to_char(escalated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS escalated_at,
  to_char(settled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS settled_at,
  to_char(next_remind_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS next_remind_at,
  receipt, coalesce(escalates_at <= now(), false) AS escalation_due, coalesce(expires_at <= now(), false) AS expired,
  coalesce(next_remind_at <= now(), false) AS remind_due`;

/** Locks and reads one approval (FOR UPDATE: decisions and the worker's wait serialise on it). */
export async function lockApproval(tx: SqlHandle, runId: string, key: string): Promise<ApprovalRow | undefined> {
  const rows = await tx.unsafe<ApprovalRow[]>(`SELECT ${COLUMNS} FROM approvals WHERE run_id = $1 AND key = $2 FOR UPDATE`, [
    runId,
    key,
  ]);
  return rows[0];
}

/** The decisions of one approval, in the order they were made. */
export async function readDecisions(tx: SqlHandle, runId: string, key: string): Promise<ApprovalDecision[]> {
  return tx.unsafe<ApprovalDecision[]>(
    `SELECT operator_id::text AS "operatorId", email, channel, decision, comment,
            to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
     FROM approval_decisions WHERE run_id = $1 AND key = $2 ORDER BY at, id`,
    [runId, key],
  );
}

/**
 * Settles an open approval once (status and outcome); false when it was settled already. In the same
 * statement the settlement is counted for the metrics (settle-stats.ts): by `expiry` when the
 * status is "expired" (whatever onExpire made the outcome), else by `decisions`, with the seconds
 * from opening to now in each bucket whose bound they are within.
 */
export async function settleApproval(
  tx: SqlHandle,
  runId: string,
  key: string,
  status: "approved" | "rejected" | "expired",
  outcome: "approved" | "rejected" | "expired",
): Promise<boolean> {
  const rows = await tx.unsafe(
    `WITH settled AS (
       UPDATE approvals SET status = $3, outcome = $4, settled_at = now()
       WHERE run_id = $1 AND key = $2 AND status = 'open'
       RETURNING tenant_id, greatest(extract(epoch FROM settled_at - opened_at), 0)::float8 AS seconds
     )
     INSERT INTO approval_settle_stats AS s (tenant_id, settled_by, outcome, settled, seconds_sum, buckets)
     SELECT tenant_id, CASE WHEN $3::text = 'expired' THEN 'expiry' ELSE 'decisions' END, $4, 1, seconds,
            ARRAY(SELECT (seconds <= b.le)::int::bigint FROM unnest($5::float8[]) WITH ORDINALITY AS b(le, i) ORDER BY b.i)
     FROM settled
     ON CONFLICT (tenant_id, settled_by, outcome) DO UPDATE SET
       settled = s.settled + 1,
       seconds_sum = s.seconds_sum + excluded.seconds_sum,
       buckets = ARRAY(SELECT coalesce(u.was, 0) + coalesce(u.add, 0)
                       FROM unnest(s.buckets, excluded.buckets) WITH ORDINALITY AS u(was, add, i) ORDER BY u.i)
     RETURNING 1`,
    [runId, key, status, outcome, APPROVAL_SETTLE_BUCKETS as number[]],
  );
  return rows.length === 1;
}
