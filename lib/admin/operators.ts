import { z } from "zod";
import { inTransaction } from "../../db/client";
import {
  addOperatorTenant,
  createOperator as insertOperator,
  type OperatorRow,
  setOperatorDisabled as updateOperatorDisabled,
} from "../../db/queries/operators";
import { findTenantById } from "../../db/queries/tenants";
import { isUuid } from "../../db/sql";
import { hashPassword } from "../auth";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { conflictOnDuplicate } from "./conflicts";
import { parseInput } from "./parse-input";
import { emailRule, idRule, operatorNameRule, passwordRule, roleRule } from "./rules";

export const ZCreateOperator = z.object({
  email: emailRule,
  password: passwordRule,
  role: roleRule,
  name: operatorNameRule.optional(),
  /** Also make the operator a member of this tenant (the CLI's --tenant). */
  tenantId: idRule.optional(),
});

export type CreatedOperator = Omit<OperatorRow, "password_hash"> & { tenantIds: string[] };

/** Creates a login for the console; the password is stored as a scrypt hash and never returned or logged. */
export async function createOperator(ctx: AdminContext, input: z.input<typeof ZCreateOperator>): Promise<CreatedOperator> {
  const { email, password, role, name, tenantId } = parseInput(ZCreateOperator, input);
  const passwordHash = await hashPassword(password);
  const created = await inTransaction(ctx.sql, async (tx) => {
    if (tenantId !== undefined && !(await findTenantById(tx, tenantId))) throw new AppError("not_found", "No such tenant.");
    const operator = await conflictOnDuplicate(
      () => insertOperator(tx, { email, passwordHash, role, name }),
      `An operator with email ${email} already exists`,
    );
    if (tenantId !== undefined) await addOperatorTenant(tx, { operatorId: operator.id, tenantId });
    return operator;
  });
  audit(ctx.actor, "operator.create", { createdOperatorId: created.id, role: created.role, tenantId });
  const { password_hash: _secret, ...operator } = created;
  return { ...operator, tenantIds: tenantId === undefined ? [] : [tenantId] };
}

export const ZSetOperatorDisabled = z.object({ operatorId: idRule, disabled: z.boolean() });

/** Disables (or enables) an operator: requireOperator re-reads the row, so a session ends on its next request. */
export async function setOperatorDisabled(ctx: AdminContext, input: z.input<typeof ZSetOperatorDisabled>): Promise<void> {
  const { operatorId, disabled } = parseInput(ZSetOperatorDisabled, input);
  // Nobody locks themselves out of the console by accident.
  if (ctx.actor.kind === "operator" && ctx.actor.id === operatorId)
    throw new AppError("bad_request", "You cannot disable yourself.");
  if (!isUuid(operatorId) || !(await updateOperatorDisabled(ctx.sql, { operatorId, disabled }))) throw new AppError("not_found");
  audit(ctx.actor, disabled ? "operator.disable" : "operator.enable", { targetOperatorId: operatorId });
}
