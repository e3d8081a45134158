import { revokeKeysCreatedBy } from "../../db/queries/api-keys";
import { revokeGrantsOfOperator } from "../../db/queries/oauth-grants";
import type { AdminContext } from "./actor";
import { audit } from "./audit";

/** Why an operator's credentials were ended (stored as the grants' revoked_reason and in the audit trail). */
export type ContainmentReason =
  | "password_reset"
  | "password_change"
  | "sessions_ended"
  | "operator_disabled"
  | "member_removed"
  | "mfa_reset";

/**
 * Ends what acts in an operator's name besides its console sessions (review F7, ASVS 3.3.3): the
 * OAuth grants it approved (delegated sessions: their access and refresh tokens stop at once) and,
 * with `keys`, the API keys it minted. `tenantId` narrows both to one tenant (a removed
 * membership). Each revocation is audited with the reason.
 *
 * Which events end what (docs/security.md, "Containing an operator"): a password reset or change,
 * "sign out everywhere" and an admin's MFA reset end sessions and grants, not keys (machines use keys; a person who
 * suspects one lists and revokes them on Connections); a disable ends all three; removing a
 * membership ends the grants and keys of that tenant.
 */
export async function endOperatorCredentials(
  ctx: AdminContext,
  params: { operatorId: string; reason: ContainmentReason; keys: boolean; tenantId?: string },
): Promise<{ revokedGrants: number; revokedKeys: number }> {
  const grants = await revokeGrantsOfOperator(ctx.sql, params);
  for (const grant of grants) {
    await audit(ctx, "oauth.grant_revoked", {
      grantId: grant.id,
      clientId: grant.client_id,
      tenantId: grant.tenant_id,
      targetOperatorId: params.operatorId,
      reason: params.reason,
    });
  }
  const keys = params.keys ? await revokeKeysCreatedBy(ctx.sql, params.operatorId, params.tenantId) : [];
  for (const key of keys) await audit(ctx, "key.revoke", { tenantId: key.tenant_id, keyId: key.id, reason: params.reason });
  return { revokedGrants: grants.length, revokedKeys: keys.length };
}
