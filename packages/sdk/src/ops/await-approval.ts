import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import { auditApproval } from "../approvals/audit";
import { issueReceipt, type ReceiptSigner } from "../approvals/issue-receipt";
import { type ApprovalRequest, openApproval } from "../approvals/open";
import { type ApprovalOutcome, describeApprovers, expiryOutcome } from "../approvals/policy";
import { lockApproval, readDecisions, settleApproval } from "../approvals/rows";
import type { ApprovalResult } from "../approvals/types";
import { queueApprovalEvent } from "../approvals/webhook-events";
import { CHANNELS } from "../channels";
import { WorkflowMisuse } from "../errors";
import { lockLeasedRun } from "./transaction";
import { LEASE_GUARD, type Lease, RENEW_AND_PROGRESS } from "./types";

/**
 * `notify`: this call opened the approval or marked its escalation, so its approvers are to be told;
 * `remind`: this call took the period's reminder, so those who may decide and have not are reminded
 * (approvals/mail.ts).
 */
export type ApprovalWaitOutcome =
  | { kind: "settled"; result: ApprovalResult }
  | { kind: "suspended"; notify?: "opened" | "escalated"; remind?: true }
  | { kind: "lease_lost" };

/**
 * The durable half of ctx.requestApproval. Under the run's row lock, then the approval's (the order
 * decideApproval takes them in, so a decision and this wait serialise and no wake-up is lost):
 * open the approval once; by the store's clock, expire it (onExpire's outcome), or mark its
 * escalation and take a due reminder; then either sign its receipt and memoize the result (settled),
 * or park the run in `waiting_signal` with `wait_detail.approval`, claimable at the escalation, the
 * next reminder or the expiry — whichever comes first — so a worker comes back to apply it even if
 * nobody decides (docs/approvals.md "Time"). A reminder is taken by moving `next_remind_at` one
 * period past now in this transaction (under the run's lease and the approval's lock): however many
 * workers wake, or crash after the commit, one period gives at most one reminder.
 */
export async function awaitApproval(
  sql: SqlHandle,
  lease: Lease,
  request: ApprovalRequest & { seq: number | null },
  signer: ReceiptSigner,
): Promise<ApprovalWaitOutcome> {
  return inTransaction(sql, async (tx) => {
    if (!(await lockLeasedRun(tx, lease))) return { kind: "lease_lost" } as const;
    const asked = await openApproval(tx, lease.runId, request);
    let approval = await lockApproval(tx, lease.runId, request.key);
    if (!approval) throw new Error(`approval ${request.key} vanished`);
    // Bound to the exact call: the same key asking other details or another policy is another approval.
    if (approval.details_digest !== asked.detailsDigest || approval.policy_digest !== asked.policyDigest)
      throw new WorkflowMisuse(
        "nondeterminism",
        `ctx.requestApproval("${request.key}") asks other details or another policy than when it was opened; use a new key`,
      );
    const target = { tenantId: approval.tenant_id, runId: lease.runId, key: request.key };
    let notify: "opened" | "escalated" | undefined = asked.opened ? "opened" : undefined;
    let remind = false;
    if (approval.status === "open" && approval.expired) {
      const outcome = expiryOutcome(approval.policy);
      await settleApproval(tx, lease.runId, request.key, "expired", outcome);
      await auditApproval(tx, "approval.expired", target, { outcome });
      await queueApprovalEvent(tx, "task.approval_expired", lease.runId, {
        key: request.key,
        outcome,
        expiresAt: approval.expires_at,
      });
    } else if (approval.status === "open") {
      if (approval.escalation_due && !approval.escalated_at) {
        await tx.unsafe("UPDATE approvals SET escalated_at = now() WHERE run_id = $1 AND key = $2", [lease.runId, request.key]);
        await auditApproval(tx, "approval.escalated", target);
        notify = "escalated";
      }
      if (approval.remind_due && approval.policy.remindEveryMs) {
        await tx.unsafe(
          `UPDATE approvals SET next_remind_at = now() + make_interval(secs => $3::float8 / 1000.0)
           WHERE run_id = $1 AND key = $2`,
          [lease.runId, request.key, approval.policy.remindEveryMs],
        );
        await auditApproval(tx, "approval.reminded", target, { due: approval.next_remind_at });
        remind = true;
      }
    }
    approval = await lockApproval(tx, lease.runId, request.key);
    if (!approval) throw new Error(`approval ${request.key} vanished`);
    if (approval.status === "open") {
      await tx.unsafe(
        `WITH parked AS (
           UPDATE runs SET status = 'waiting_signal', lease_owner = NULL, lease_expires_at = NULL,
                  claimable_at = (SELECT least(CASE WHEN a.escalated_at IS NULL THEN a.escalates_at END, a.expires_at, a.next_remind_at)
                                  FROM approvals a WHERE a.run_id = $1 AND a.key = $4),
                  checkpoints = checkpoints + 1, lost_attempts = 0, updated_at = now(),
                  wait_detail = (SELECT jsonb_build_object('approval', jsonb_strip_nulls(jsonb_build_object(
                                   'key', a.key, 'since', a.opened_at, 'deadline', a.expires_at,
                                   'escalatesAt', CASE WHEN a.escalated_at IS NULL THEN a.escalates_at END,
                                   'approvers', $5::text, 'quorum', $6::int,
                                   'approved', (SELECT count(*) FROM approval_decisions d
                                                WHERE d.run_id = a.run_id AND d.key = a.key AND d.decision = 'approve'))))
                                 FROM approvals a WHERE a.run_id = $1 AND a.key = $4)
           WHERE id = $1 AND ${LEASE_GUARD} RETURNING id
         ), history AS (
           INSERT INTO run_events (run_id, type, payload) SELECT id, 'waiting_approval', jsonb_build_object('key', $4::text) FROM parked
         )
         SELECT pg_notify('${CHANNELS.task}', id::text) FROM parked`,
        [
          lease.runId,
          lease.workerId,
          lease.attempt,
          request.key,
          describeApprovers(approval.policy, approval.escalated_at !== null),
          approval.policy.quorum,
        ],
      );
      return { kind: "suspended", ...(notify ? { notify } : {}), ...(remind ? { remind: true } : {}) } as const;
    }
    const decisions = await readDecisions(tx, lease.runId, request.key);
    const receipt = await issueReceipt(tx, approval, decisions, signer);
    const result: ApprovalResult = { outcome: approval.outcome as ApprovalOutcome, decisions, receipt };
    const recorded = await tx.unsafe(
      `WITH renewed AS (
         UPDATE runs SET checkpoints = checkpoints + 1, ${RENEW_AND_PROGRESS}
         WHERE id = $1 AND ${LEASE_GUARD} RETURNING id
       ), step AS (
         INSERT INTO run_steps (run_id, key, output, seq) SELECT id, 'approval:' || $5, $6::text::jsonb, $7 FROM renewed
         ON CONFLICT (run_id, key) DO NOTHING RETURNING run_id
       )
       INSERT INTO run_events (run_id, type, payload)
       SELECT run_id, 'approval_settled', jsonb_build_object('key', $5::text, 'outcome', $8::text) FROM step
       RETURNING 1`,
      [lease.runId, lease.workerId, lease.attempt, lease.leaseMs, request.key, jsonParam(result), request.seq, result.outcome],
    );
    if (recorded.length === 0) return { kind: "lease_lost" } as const;
    return { kind: "settled", result } as const;
  });
}
