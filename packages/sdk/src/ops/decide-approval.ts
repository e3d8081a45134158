import { inTransaction, isUuid, jsonParam, type SqlHandle } from "@runifold/store";
import { auditApproval } from "../approvals/audit";
import { type ApprovalChannel, type ApprovalOutcome, type Decision, eligibility, type Person, tally } from "../approvals/policy";
import type { ApprovalDecision } from "../approvals/receipt";
import { lockApproval, readDecisions, settleApproval } from "../approvals/rows";
import { queueApprovalEvent } from "../approvals/webhook-events";
import { CHANNELS } from "../channels";
import { isTerminal, type RunStatus } from "../states";

/** Who decides: an operator id, and the tenant of the credential they act through (never from the request). */
export type DecidingOperator = { operatorId: string; tenantId: string };

export type DecisionInput = { decision: Decision; comment?: string | null; fields?: Record<string, unknown> | null };

export type RefusalCode =
  | "invalid_decision"
  | "not_open"
  | "expired"
  | "not_a_member"
  | "separation_of_duties"
  | "not_an_approver"
  | "caller_excluded"
  | "already_decided";

export type DecideResult =
  | { kind: "not_found" }
  | { kind: "refused"; code: RefusalCode; message: string }
  | { kind: "recorded"; outcome: ApprovalOutcome | null; decisions: ApprovalDecision[] };

export const MAX_COMMENT_CHARS = 2_000;

/**
 * THE way to decide an approval — the HTTP API, the CLI over HTTP, the console and MCP all call
 * this. Under the run's row lock, then the approval's (FOR UPDATE; the worker's wait takes them in
 * the same order): checks the person now (membership, policy, separation of duties, escalation and
 * expiry by the store's clock, one decision per person) and either records the decision — settling
 * the approval and queueing its run when the quorum or reject quorum is reached — or refuses it with
 * an audit row (`approval.refused`) and records nothing else. Another tenant's task answers
 * `not_found` exactly like an unknown one.
 */
export async function decideApproval(
  sql: SqlHandle,
  operator: DecidingOperator,
  taskId: string,
  key: string,
  input: DecisionInput,
  channel: ApprovalChannel,
): Promise<DecideResult> {
  if (!isUuid(taskId) || !isUuid(operator.operatorId) || !isUuid(operator.tenantId)) return { kind: "not_found" };
  return inTransaction(sql, async (tx) => {
    const [run] = await tx.unsafe<{ status: RunStatus }[]>(
      "SELECT status FROM runs WHERE id = $1 AND tenant_id = $2 FOR UPDATE",
      [taskId, operator.tenantId],
    );
    const approval = run ? await lockApproval(tx, taskId, key) : undefined;
    if (!run || !approval) return { kind: "not_found" } as const;
    const target = { tenantId: operator.tenantId, runId: taskId, key };
    const refuse = async (code: RefusalCode, message: string): Promise<DecideResult> => {
      await auditApproval(tx, "approval.refused", target, { reason: code, channel }, operator.operatorId);
      return { kind: "refused", code, message };
    };
    if (input.decision !== "approve" && input.decision !== "reject")
      return { kind: "refused", code: "invalid_decision", message: 'decision must be "approve" or "reject"' };
    if (input.comment != null && (typeof input.comment !== "string" || input.comment.length > MAX_COMMENT_CHARS))
      return {
        kind: "refused",
        code: "invalid_decision",
        message: `comment must be text of at most ${MAX_COMMENT_CHARS} characters`,
      };
    if (input.fields != null && (typeof input.fields !== "object" || Array.isArray(input.fields)))
      return { kind: "refused", code: "invalid_decision", message: "fields must be an object" };
    if (approval.status !== "open" || isTerminal(run.status))
      return refuse("not_open", `This approval is no longer open (${approval.outcome ?? run.status})`);
    // The store's clock decides expiry; the worker applies onExpire when it wakes at expires_at.
    if (approval.expired) return refuse("expired", "This approval has expired");
    const person = await readPerson(tx, operator);
    if (!person) return refuse("not_a_member", "Only an operator of this task's tenant can decide its approvals");
    const verdict = eligibility(approval.policy, person, {
      excluded: approval.excluded_operator_ids,
      escalated: approval.escalation_due,
      channel,
    });
    if (!verdict.ok) return refuse(verdict.code, verdict.message);
    const inserted = await tx.unsafe(
      `INSERT INTO approval_decisions (run_id, key, operator_id, email, channel, decision, comment, fields)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb)
       ON CONFLICT (run_id, key, operator_id) DO NOTHING RETURNING 1`,
      [
        taskId,
        key,
        person.id,
        person.email,
        channel,
        input.decision,
        input.comment ?? null,
        input.fields == null ? null : jsonParam(input.fields),
      ],
    );
    if (inserted.length === 0) return refuse("already_decided", `${person.email} has already decided this approval`);
    const decisions = await readDecisions(tx, taskId, key);
    const outcome = tally(approval.policy, decisions) ?? null;
    await auditApproval(tx, "approval.decided", target, { decision: input.decision, channel, outcome }, person.id);
    await queueApprovalEvent(tx, "task.approval_decided", taskId, {
      key,
      decision: { email: person.email, decision: input.decision, channel, comment: input.comment ?? null },
      outcome,
    });
    if (outcome) {
      await settleApproval(tx, taskId, key, outcome, outcome);
      await auditApproval(tx, "approval.settled", target, { outcome, decisions: decisions.length }, person.id);
      await tx.unsafe(
        `UPDATE runs SET status = 'queued', claimable_at = now(), wait_detail = NULL, updated_at = now()
         WHERE id = $1 AND status = 'waiting_signal' AND wait_detail->'approval'->>'key' = $2
         RETURNING pg_notify('${CHANNELS.wake}', workflow_key)`,
        [taskId, key],
      );
    }
    if (!outcome) {
      // The status message counts approvals so far ("1 of 2 from group finance"): keep the wait's count true.
      await tx.unsafe(
        `UPDATE runs SET updated_at = now(), wait_detail = jsonb_set(wait_detail, '{approval,approved}', to_jsonb($3::int))
         WHERE id = $1 AND status = 'waiting_signal' AND wait_detail->'approval'->>'key' = $2`,
        [taskId, key, decisions.filter((d) => d.decision === "approve").length],
      );
    }
    await tx.unsafe(`SELECT pg_notify('${CHANNELS.task}', $1)`, [taskId]);
    return { kind: "recorded", outcome, decisions } as const;
  });
}

/** The operator as they are now: enabled, and a member of the tenant (admins belong to every tenant). */
async function readPerson(tx: SqlHandle, operator: DecidingOperator): Promise<Person | undefined> {
  const [row] = await tx.unsafe<Person[]>(
    `SELECT o.id::text AS id, o.email, o.role, o.groups FROM operators o
     WHERE o.id = $1 AND o.disabled_at IS NULL
       AND (o.role = 'admin' OR EXISTS (SELECT 1 FROM operator_tenants m WHERE m.operator_id = o.id AND m.tenant_id = $2))`,
    [operator.operatorId, operator.tenantId],
  );
  return row;
}
