import { approvalKeyMaterial, rotateApprovalSigningKey } from "@runifold/sdk";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";

/**
 * Adds a new approval signing key (docs/approvals.md "Keys"): it signs every receipt from now on;
 * the older keys stay in the JWKS so receipts they signed still verify. Audited as
 * `approval.key.rotate` with the new kid. `env` supplies the sealing material (RUNIFOLD_WEBHOOK_KEY
 * or NEXTAUTH_SECRET), the same the web and the workers use.
 */
export async function rotateApprovalKey(ctx: AdminContext, env: Record<string, string | undefined>): Promise<string> {
  let material: string;
  try {
    material = approvalKeyMaterial(env);
  } catch (error) {
    throw new AppError("bad_request", (error as Error).message);
  }
  const kid = await rotateApprovalSigningKey(ctx.sql, material);
  await audit(ctx, "approval.key.rotate", { kid });
  return kid;
}
