import { jsonParam, type SqlHandle } from "@runifold/store";
import { auditApproval } from "./audit";
import { canonicalDigest } from "./digest";
import { describeApprovers, type NormalizedPolicy } from "./policy";
import { queueApprovalEvent } from "./webhook-events";

export type ApprovalRequest = {
  key: string;
  message: string;
  details: unknown;
  requestedSchema: unknown;
  policy: NormalizedPolicy;
};

/**
 * Opens the approval of `request.key` for a run once (a replay finds it open and writes nothing):
 * binds it to the exact call (digests of the run's arguments, the details and the policy, RFC 8785),
 * resolves the people separation of duties keeps out — the operator behind the run's credential
 * (an OAuth grant's) and the creator of its API key — and sets its clock from the store's now()
 * (expiry, escalation, the first reminder).
 * Returns the digests the request has now, so the caller can tell a replay that asks something else,
 * and whether this call opened it.
 */
export async function openApproval(
  tx: SqlHandle,
  runId: string,
  request: ApprovalRequest,
): Promise<{ detailsDigest: string; policyDigest: string; opened: boolean }> {
  const [run] = await tx.unsafe<{ tenant_id: string; input: unknown; created_by_key_id: string | null }[]>(
    "SELECT tenant_id, input, created_by_key_id FROM runs WHERE id = $1",
    [runId],
  );
  if (!run) throw new Error(`run ${runId} not found`);
  const detailsDigest = canonicalDigest(request.details ?? null);
  const policyDigest = canonicalDigest(request.policy);
  const { policy } = request;
  const opened = await tx.unsafe(
    `WITH requester AS (
       SELECT g.operator_id AS id FROM oauth_grants g WHERE g.id = $14::uuid
       UNION
       SELECT k.created_by_operator_id FROM api_keys k WHERE k.id = $11::text AND k.created_by_operator_id IS NOT NULL
     )
     INSERT INTO approvals (run_id, key, tenant_id, message, details, requested_schema, policy, args_digest,
                            details_digest, policy_digest, excluded_operator_ids, expires_at, escalates_at, next_remind_at)
     SELECT $1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb, $7::text::jsonb, $8, $9, $10,
            coalesce((SELECT array_agg(id) FROM requester), '{}'),
            CASE WHEN $12::float8 IS NOT NULL THEN now() + make_interval(secs => $12::float8 / 1000.0) END,
            CASE WHEN $13::float8 IS NOT NULL THEN now() + make_interval(secs => $13::float8 / 1000.0) END,
            CASE WHEN $15::float8 IS NOT NULL THEN now() + make_interval(secs => $15::float8 / 1000.0) END
     ON CONFLICT (run_id, key) DO NOTHING
     RETURNING 1`,
    [
      runId,
      request.key,
      run.tenant_id,
      request.message,
      jsonParam(request.details ?? null),
      request.requestedSchema === undefined ? null : jsonParam(request.requestedSchema),
      jsonParam(policy),
      canonicalDigest(run.input),
      detailsDigest,
      policyDigest,
      run.created_by_key_id ?? "",
      policy.expiresInMs,
      policy.escalate?.afterMs ?? null,
      grantIdOf(run.created_by_key_id),
      policy.remindEveryMs,
    ],
  );
  if (opened.length === 1) {
    const target = { tenantId: run.tenant_id, runId, key: request.key };
    await auditApproval(tx, "approval.requested", target, { quorum: policy.quorum, rejectQuorum: policy.rejectQuorum });
    await queueApprovalEvent(tx, "task.approval_requested", runId, {
      key: request.key,
      message: request.message,
      approvers: describeApprovers(policy),
      quorum: policy.quorum,
    });
  }
  return { detailsDigest, policyDigest, opened: opened.length === 1 };
}

/** Tasks started with an OAuth token are bound to `oauth:<grant id>` (lib/auth oauthKeyId); API keys by their id. */
function grantIdOf(keyId: string | null): string | null {
  const match = /^oauth:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(keyId ?? "");
  return match?.[1] ?? null;
}
