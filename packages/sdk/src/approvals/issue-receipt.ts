import type { SqlHandle } from "@runifold/store";
import { type ApprovalDecision, type ReceiptPayload, signReceipt } from "./receipt";
import type { ApprovalRow } from "./rows";
import { currentSigningKey } from "./signing-keys";

/** What signing needs from the process: the key material that opens the signing key, and the issuer. */
export type ReceiptSigner = { material: string; issuer: string };

/**
 * Signs the receipt of a settled approval and stores it on the row, once: the receipt already
 * stored is returned as it is (a replay, a second worker). The row must be locked by the caller.
 */
export async function issueReceipt(
  tx: SqlHandle,
  approval: ApprovalRow,
  decisions: ApprovalDecision[],
  signer: ReceiptSigner,
): Promise<string> {
  if (approval.receipt) return approval.receipt;
  if (!approval.outcome || !approval.settled_at) throw new Error(`approval ${approval.key} is not settled`);
  const [run] = await tx.unsafe<
    { tenant: string; workflow: string; version: number; tool: string | null; route_revision: number | null }[]
  >(
    `SELECT t.slug AS tenant, r.workflow_name AS workflow, r.workflow_version AS version,
            ro.tool_name AS tool, ro.revision AS route_revision
     FROM runs r JOIN tenants t ON t.id = r.tenant_id LEFT JOIN routes ro ON ro.id = r.route_id
     WHERE r.id = $1`,
    [approval.run_id],
  );
  if (!run) throw new Error(`run ${approval.run_id} not found`);
  const payload: ReceiptPayload = {
    iss: signer.issuer,
    sub: approval.run_id,
    tenant: run.tenant,
    tool: run.tool,
    workflow: run.workflow,
    version: run.version,
    routeRevision: run.route_revision,
    argsDigest: approval.args_digest,
    detailsDigest: approval.details_digest,
    policyDigest: approval.policy_digest,
    key: approval.key,
    outcome: approval.outcome,
    decisions,
    decidedAt: approval.settled_at,
  };
  const receipt = await signReceipt(payload, await currentSigningKey(tx, signer.material));
  await tx.unsafe("UPDATE approvals SET receipt = $3 WHERE run_id = $1 AND key = $2", [approval.run_id, approval.key, receipt]);
  return receipt;
}
