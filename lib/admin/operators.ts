import { inTransaction, isUuid } from "@runifold/store";
import { z } from "zod";
import {
  addOperatorTenant,
  createOperator as insertOperator,
  type OperatorRow,
  setOperatorDisabled as updateOperatorDisabled,
} from "../../db/queries/operators";
import { findTenantById } from "../../db/queries/tenants";
import { hashPassword } from "../auth";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { conflictOnDuplicate } from "./conflicts";
import { endOperatorCredentials } from "./containment";
import { parseInput } from "./parse-input";
import { emailRule, idRule, operatorNameRule, passwordRule, roleRule } from "./rules";

export const ZCreateOperator = z.object({
  email: emailRule,
  password: passwordRule,
  role: roleRule,
  name: operatorNameRule.optional(),
  /** Also make the operator a member of this tenant (the CLI's --tenant). */
  tenantId: idRule.optional(),
  /** A password someone else chose (the first admin, an admin's choice): changed at first sign-in. */
  mustChangePassword: z.boolean().default(false),
});

export type CreatedOperator = Omit<OperatorRow, "password_hash"> & { tenantIds: string[] };

/** Creates a login for the console; the password is stored as a scrypt hash and never returned or logged. */
export async function createOperator(ctx: AdminContext, input: z.input<typeof ZCreateOperator>): Promise<CreatedOperator> {
  const { email, password, role, name, tenantId, mustChangePassword } = parseInput(ZCreateOperator, input);
  const passwordHash = await hashPassword(password);
  const created = await inTransaction(ctx.sql, async (tx) => {
    if (tenantId !== undefined && !(await findTenantById(tx, tenantId))) throw new AppError("not_found", "No such tenant.");
    const operator = await conflictOnDuplicate(
      () => insertOperator(tx, { email, passwordHash, role, name, mustChangePassword }),
      `An operator with email ${email} already exists`,
    );
    if (tenantId !== undefined) await addOperatorTenant(tx, { operatorId: operator.id, tenantId });
    return operator;
  });
  await audit(ctx, "operator.create", { createdOperatorId: created.id, role: created.role, tenantId });
  const { password_hash: _secret, ...operator } = created;
  return { ...operator, tenantIds: tenantId === undefined ? [] : [tenantId] };
}

export const ZSetOperatorDisabled = z.object({
  operatorId: idRule,
  disabled: z.boolean(),
  /**
   * Also revoke every active key this operator minted (default: yes, review F7). Sessions and
   * OAuth grants end whatever this says.
   */
  revokeKeys: z.boolean().default(true),
});

/**
 * Disables (or enables) an operator: its sessions end at once (the session version is bumped), the
 * OAuth grants it approved are revoked, and (unless `revokeKeys` is false) so are the API keys it
 * minted, so that enabling it again brings none of them back. Returns how many of each were revoked.
 */
export async function setOperatorDisabled(
  ctx: AdminContext,
  input: z.input<typeof ZSetOperatorDisabled>,
): Promise<{ revokedKeys: number; revokedGrants: number }> {
  const { operatorId, disabled, revokeKeys } = parseInput(ZSetOperatorDisabled, input);
  // Nobody locks themselves out of the console by accident.
  if (ctx.actor.kind === "operator" && ctx.actor.id === operatorId)
    throw new AppError("bad_request", "You cannot disable yourself.");
  if (!isUuid(operatorId) || !(await updateOperatorDisabled(ctx.sql, { operatorId, disabled }))) throw new AppError("not_found");
  await audit(ctx, disabled ? "operator.disable" : "operator.enable", { targetOperatorId: operatorId });
  if (!disabled) return { revokedKeys: 0, revokedGrants: 0 };
  return endOperatorCredentials(ctx, { operatorId, reason: "operator_disabled", keys: revokeKeys });
}
