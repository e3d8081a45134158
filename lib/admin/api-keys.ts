import { z } from "zod";
import { revokeApiKey } from "../../db/queries/api-keys";
import { findTenantById } from "../../db/queries/tenants";
import { createApiKey, SCOPES, type Scope } from "../auth";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { parseInput } from "./parse-input";
import { expiresInDaysRule, idRule, keyIdRule, keyNameRule } from "./rules";

const DAY_MS = 86_400_000;

export const ZCreateKey = z.object({
  tenantId: idRule,
  name: keyNameRule,
  /** Default: every scope. Duplicates are dropped. */
  scopes: z
    .array(z.enum(SCOPES, `Scopes are ${SCOPES.join(", ")}`))
    .min(1, "Choose at least one scope")
    .optional(),
  /** Default: the key never expires. */
  expiresInDays: expiresInDaysRule.optional(),
});

export type CreatedKey = { keyId: string; token: string; scopes: Scope[]; expiresAt: Date | null };

/** Creates a key of a tenant; the token is returned once and never stored (the store keeps its SHA-256). */
export async function createKey(ctx: AdminContext, input: z.input<typeof ZCreateKey>): Promise<CreatedKey> {
  const params = parseInput(ZCreateKey, input);
  if (!(await findTenantById(ctx.sql, params.tenantId))) throw new AppError("not_found");
  const scopes = [...new Set(params.scopes ?? SCOPES)];
  const expiresAt = params.expiresInDays === undefined ? null : new Date(Date.now() + params.expiresInDays * DAY_MS);
  const { keyId, token } = await createApiKey(ctx.sql, { tenantId: params.tenantId, name: params.name, scopes, expiresAt });
  audit(ctx.actor, "key.create", {
    tenantId: params.tenantId,
    keyId,
    scopes: scopes.join(","),
    expiresAt: expiresAt?.toISOString(),
  });
  return { keyId, token, scopes, expiresAt };
}

export const ZRevokeKey = z.object({
  keyId: keyIdRule,
  /** The caller's tenant: another tenant's key is then "not found", exactly like a missing one. */
  tenantId: idRule.optional(),
});

/** Revokes an active key; it stops authenticating on its next request. */
export async function revokeKey(ctx: AdminContext, input: z.input<typeof ZRevokeKey>): Promise<void> {
  const { keyId, tenantId } = parseInput(ZRevokeKey, input);
  const tenantScope = tenantId === undefined ? undefined : ((await findTenantById(ctx.sql, tenantId))?.id ?? null);
  if (tenantScope === null || !(await revokeApiKey(ctx.sql, { keyId, tenantId: tenantScope }))) {
    throw new AppError("not_found", `No active key ${keyId}`);
  }
  audit(ctx.actor, "key.revoke", { tenantId, keyId });
}
