import { inTransaction, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { TERMINAL_STATUSES_SQL } from "../states";
import { lockLeasedRun } from "./transaction";
import { LEASE_GUARD, type Lease } from "./types";

export type ContinueAsNewOutcome =
  | { kind: "continued"; generation: number }
  /** Something of this generation is still outstanding: the run fails with this reason (a misuse). */
  | { kind: "refused"; reason: string }
  | { kind: "lease_lost" };

/**
 * The durable half of ctx.continueAsNew: the same run (task ID, tenant, credential, subscriptions)
 * starts a fresh history with `inputJson` as its input, in ONE transaction under the lease and the
 * run's row lock. Either all of it happened or none of it did: a worker that dies before the commit
 * leaves the old generation to be replayed up to this call again (its steps are memoized); after the
 * commit, the old generation's code never runs again (its history is gone, its input replaced), so
 * the transition cannot happen twice.
 *
 * What the new generation starts from (docs/authoring.md "Continue-as-new"):
 * - its history is empty: the old generation's steps and answered inputs are removed (but the
 *   preflight answers the caller gave with the call: they belong to the task);
 * - the timeline (run_events, append-only) is kept whole: a `continued_as_new` event with the new
 *   generation number and what was removed marks where each generation starts;
 * - signals not yet consumed stay queued for the new generation; consumed ones stay consumed;
 * - children and approvals of the old generation stay as they are (other runs, signed decisions);
 *   the new generation's children are keyed `<key>@g<generation>` (start-child.ts) and the old
 *   generation's approvals move to `<key>@g<old generation>`, so the new generation may reuse keys;
 * - it is refused while a child run has not ended or an approval is still open: they would answer a
 *   generation that no longer waits for them.
 * The run goes back to `queued` (MCP `working` throughout) with `checkpoints` 0, so its next claim
 * loads nothing. Its deadline, handle lifetime and attempt counter (the lease's fencing token) go on.
 */
export async function continueRunAsNew(
  sql: SqlHandle,
  lease: Lease,
  params: { inputJson: string },
): Promise<ContinueAsNewOutcome> {
  return inTransaction(sql, async (tx) => {
    if (!(await lockLeasedRun(tx, lease))) return { kind: "lease_lost" } as const;
    const [open] = await tx.unsafe<{ children: number; approvals: number; generation: number }[]>(
      `SELECT (SELECT count(*) FROM runs WHERE parent_run_id = $1 AND status NOT IN ${TERMINAL_STATUSES_SQL})::int AS children,
              (SELECT count(*) FROM approvals WHERE run_id = $1 AND status = 'open')::int AS approvals,
              (SELECT generation FROM runs WHERE id = $1) AS generation`,
      [lease.runId],
    );
    if (!open) return { kind: "lease_lost" } as const;
    if (open.children > 0)
      return { kind: "refused", reason: `${open.children} child run(s) have not ended: await their result() first` } as const;
    if (open.approvals > 0)
      return { kind: "refused", reason: `${open.approvals} approval(s) are still open: await requestApproval first` } as const;
    // This generation's approvals — opened since its start (the last transition, or the run's
    // creation): earlier generations' were moved at their own transition. One statement:
    // approval_decisions references approvals (run_id, key) without ON UPDATE CASCADE, and a foreign
    // key is checked at the end of the statement, when both sides carry the new key.
    await tx.unsafe(
      `WITH since AS (
         SELECT coalesce(max(at), '-infinity') AS at FROM run_events WHERE run_id = $1 AND type = 'continued_as_new'
       ), moved AS (
         SELECT key FROM approvals WHERE run_id = $1 AND opened_at >= (SELECT at FROM since)
       ), decisions AS (
         UPDATE approval_decisions SET key = key || $2 WHERE run_id = $1 AND key IN (SELECT key FROM moved)
       )
       UPDATE approvals SET key = key || $2 WHERE run_id = $1 AND key IN (SELECT key FROM moved)`,
      [lease.runId, `@g${open.generation}`],
    );
    const [removed] = await tx.unsafe<{ steps: number; inputs: number }[]>(
      `WITH steps AS (
         DELETE FROM run_steps WHERE run_id = $1 RETURNING 1
       ), inputs AS (
         DELETE FROM run_inputs WHERE run_id = $1 AND answered_by IS DISTINCT FROM 'preflight' RETURNING key
       ), deliveries AS (
         DELETE FROM mcp_input_deliveries WHERE run_id = $1 AND input_key IN (SELECT key FROM inputs)
       )
       SELECT (SELECT count(*) FROM steps)::int AS steps, (SELECT count(*) FROM inputs)::int AS inputs`,
      [lease.runId],
    );
    const [continued] = await tx.unsafe<{ generation: number }[]>(
      `WITH continued AS (
         UPDATE runs SET input = $4::text::jsonb, generation = generation + 1, status = 'queued', claimable_at = now(),
                lease_owner = NULL, lease_expires_at = NULL, checkpoints = 0, lost_attempts = 0, wait_detail = NULL,
                updated_at = now()
         WHERE id = $1 AND ${LEASE_GUARD}
         RETURNING id, generation, workflow_key
       ), history AS (
         INSERT INTO run_events (run_id, type, payload)
         SELECT id, 'continued_as_new', jsonb_build_object('generation', generation, 'removed', $5::text::jsonb) FROM continued
       ), notified AS (
         SELECT pg_notify('${CHANNELS.wake}', workflow_key), pg_notify('${CHANNELS.task}', id::text) FROM continued
       )
       SELECT generation FROM continued, (SELECT count(*) FROM notified) AS n`,
      [lease.runId, lease.workerId, lease.attempt, params.inputJson, JSON.stringify(removed ?? {})],
    );
    if (!continued) throw new Error("continue-as-new: the run's lease vanished under its row lock");
    return { kind: "continued", generation: continued.generation } as const;
  });
}
