import { isUuid } from "@runifold/store";
import { z } from "zod";
import { addOperatorTenant, findOperatorByEmail, findOperatorById, removeOperatorTenant } from "../../db/queries/operators";
import { findTenantById } from "../../db/queries/tenants";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { endOperatorCredentials } from "./containment";
import { parseInput } from "./parse-input";
import { emailRule, idRule } from "./rules";

// Memberships decide which tenants an `operator` sees (admins see every tenant without them).

export const ZAddMember = z.object({ tenantId: idRule, email: emailRule });

export async function addMember(ctx: AdminContext, input: z.input<typeof ZAddMember>): Promise<void> {
  const { tenantId, email } = parseInput(ZAddMember, input);
  if (!(await findTenantById(ctx.sql, tenantId))) throw new AppError("not_found");
  const member = await findOperatorByEmail(ctx.sql, email);
  if (!member) throw new AppError("bad_request", "No operator has that email; create the operator first.");
  await addOperatorTenant(ctx.sql, { operatorId: member.id, tenantId });
  await audit(ctx, "tenant.member.add", { tenantId, memberId: member.id });
}

export const ZRemoveMember = z.object({ tenantId: idRule, operatorId: idRule });

/**
 * Removes a membership. A member loses the tenant with it, so the OAuth grants it approved there and
 * the API keys it minted there are revoked too (review F7); an admin, who acts in every tenant
 * anyway, keeps them.
 */
export async function removeMember(ctx: AdminContext, input: z.input<typeof ZRemoveMember>): Promise<void> {
  const { tenantId, operatorId } = parseInput(ZRemoveMember, input);
  if (!isUuid(tenantId) || !isUuid(operatorId) || !(await removeOperatorTenant(ctx.sql, { operatorId, tenantId }))) {
    throw new AppError("not_found");
  }
  await audit(ctx, "tenant.member.remove", { tenantId, memberId: operatorId });
  if ((await findOperatorById(ctx.sql, operatorId))?.role === "admin") return;
  await endOperatorCredentials(ctx, { operatorId, tenantId, reason: "member_removed", keys: true });
}
