import "server-only";
import { z } from "zod";
import { revokeApiKey } from "../../../db/queries/api-keys";
import { findTenantById } from "../../../db/queries/tenants";
import type { OperatorContext } from "../../auth";
import { createApiKey, requireOperator, SCOPES } from "../../auth";
import { AppError } from "../../errors";
import { audit } from "./audit";
import { parseInput } from "./parse-input";

const ZCreateKey = z.object({
  tenantId: z.string(),
  name: z.string().trim().min(1, "Required").max(100),
  scopes: z.array(z.enum(SCOPES)).min(1, "Choose at least one scope"),
});

/** Creates a key of a tenant the operator may see; the token is returned once and never stored. */
export async function createKeyAction(ctx: OperatorContext, input: unknown): Promise<{ keyId: string; token: string }> {
  const tenantId =
    typeof (input as { tenantId?: unknown })?.tenantId === "string" ? (input as { tenantId: string }).tenantId : "";
  const operator = await requireOperator(ctx, { tenantId, mutating: true });
  const params = parseInput(ZCreateKey, input);
  if (!(await findTenantById(ctx.sql, params.tenantId))) throw new AppError("not_found");
  const created = await createApiKey(ctx.sql, { tenantId: params.tenantId, name: params.name, scopes: params.scopes });
  audit("key.create", {
    operatorId: operator.id,
    tenantId: params.tenantId,
    keyId: created.keyId,
    scopes: params.scopes.join(","),
  });
  return created;
}

const ZRevokeKey = z.object({ tenantId: z.string(), keyId: z.string().regex(/^[0-9a-f]{16}$/) });

/** Revokes a key; the tenant is in the UPDATE's WHERE, so another tenant's key id is "not found". */
export async function revokeKeyAction(ctx: OperatorContext, input: unknown): Promise<void> {
  const tenantId =
    typeof (input as { tenantId?: unknown })?.tenantId === "string" ? (input as { tenantId: string }).tenantId : "";
  const operator = await requireOperator(ctx, { tenantId, mutating: true });
  const parsed = ZRevokeKey.safeParse(input);
  if (!parsed.success || !(await revokeApiKey(ctx.sql, { keyId: parsed.data.keyId, tenantId }))) throw new AppError("not_found");
  audit("key.revoke", { operatorId: operator.id, tenantId, keyId: parsed.data.keyId });
}
