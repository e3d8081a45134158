import "server-only";
import { z } from "zod";
import {
  addOperatorTenant,
  createOperator,
  findOperatorByEmail,
  removeOperatorTenant,
  setOperatorDisabled,
} from "../../../db/queries/operators";
import { createTenant, findTenantById } from "../../../db/queries/tenants";
import { isUniqueViolation } from "../../../db/sql";
import type { OperatorContext } from "../../auth";
import { hashPassword, requireOperator } from "../../auth";
import { AppError } from "../../errors";
import { audit } from "./audit";
import { parseInput } from "./parse-input";

// Tenants, operators and memberships: admin only (security-auth.md §6 item 20).

const ZCreateTenant = z.object({
  slug: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "2–63 lower-case letters, digits or dashes"),
  name: z.string().trim().min(1, "Required").max(200),
});

export async function createTenantAction(ctx: OperatorContext, input: unknown): Promise<{ slug: string }> {
  const operator = await requireOperator(ctx, { role: "admin", mutating: true });
  const { slug, name } = parseInput(ZCreateTenant, input);
  try {
    const tenant = await createTenant(ctx.sql, { slug, name });
    audit("tenant.create", { operatorId: operator.id, tenantId: tenant.id, slug });
    return { slug: tenant.slug };
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", `A tenant "${slug}" already exists.`);
    throw error;
  }
}

const ZCreateOperator = z.object({
  email: z.email("Enter an email address").max(320),
  password: z.string().min(12, "At least 12 characters").max(200),
  role: z.enum(["admin", "operator"]),
});

export async function createOperatorAction(ctx: OperatorContext, input: unknown): Promise<{ id: string }> {
  const admin = await requireOperator(ctx, { role: "admin", mutating: true });
  const params = parseInput(ZCreateOperator, input);
  try {
    const created = await createOperator(ctx.sql, { ...params, passwordHash: await hashPassword(params.password) });
    audit("operator.create", { operatorId: admin.id, createdOperatorId: created.id, role: created.role });
    return { id: created.id };
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", "An operator with that email already exists.");
    throw error;
  }
}

const ZSetDisabled = z.object({ operatorId: z.uuid(), disabled: z.boolean() });

export async function setOperatorDisabledAction(ctx: OperatorContext, input: unknown): Promise<void> {
  const admin = await requireOperator(ctx, { role: "admin", mutating: true });
  const { operatorId, disabled } = parseInput(ZSetDisabled, input);
  if (operatorId === admin.id) throw new AppError("bad_request", "You cannot disable yourself.");
  if (!(await setOperatorDisabled(ctx.sql, { operatorId, disabled }))) throw new AppError("not_found");
  audit(disabled ? "operator.disable" : "operator.enable", { operatorId: admin.id, targetOperatorId: operatorId });
}

const ZMember = z.object({ tenantId: z.uuid(), email: z.email("Enter an email address") });

export async function addMemberAction(ctx: OperatorContext, input: unknown): Promise<void> {
  const admin = await requireOperator(ctx, { role: "admin", mutating: true });
  const { tenantId, email } = parseInput(ZMember, input);
  if (!(await findTenantById(ctx.sql, tenantId))) throw new AppError("not_found");
  const member = await findOperatorByEmail(ctx.sql, email);
  if (!member) throw new AppError("bad_request", "No operator has that email; create the operator first.");
  await addOperatorTenant(ctx.sql, { operatorId: member.id, tenantId });
  audit("tenant.member.add", { operatorId: admin.id, tenantId, memberId: member.id });
}

const ZRemoveMember = z.object({ tenantId: z.uuid(), operatorId: z.uuid() });

export async function removeMemberAction(ctx: OperatorContext, input: unknown): Promise<void> {
  const admin = await requireOperator(ctx, { role: "admin", mutating: true });
  const { tenantId, operatorId } = parseInput(ZRemoveMember, input);
  if (!(await removeOperatorTenant(ctx.sql, { operatorId, tenantId }))) throw new AppError("not_found");
  audit("tenant.member.remove", { operatorId: admin.id, tenantId, memberId: operatorId });
}
