import { z } from "zod";
import { revokeApiKeyAsAdmin, revokeApiKeyForTenant } from "../../db/queries/api-keys";
import { findTenantById } from "../../db/queries/tenants";
import { createApiKey, noticeCredentialChange, SCOPES, type Scope } from "../auth";
import { AppError } from "../errors";
import { type AdminContext, actorLabel } from "./actor";
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

/**
 * Creates a key of a tenant; the token is returned once and never stored (the store keeps its
 * SHA-256). The key records who minted it, so disabling an operator can revoke its keys.
 */
export async function createKey(ctx: AdminContext, input: z.input<typeof ZCreateKey>): Promise<CreatedKey> {
  const params = parseInput(ZCreateKey, input);
  const tenant = await findTenantById(ctx.sql, params.tenantId);
  if (!tenant) throw new AppError("not_found");
  const scopes = [...new Set(params.scopes ?? SCOPES)];
  const expiresAt = params.expiresInDays === undefined ? null : new Date(Date.now() + params.expiresInDays * DAY_MS);
  const { keyId, token } = await createApiKey(ctx.sql, {
    tenantId: params.tenantId,
    name: params.name,
    scopes,
    expiresAt,
    createdBy: actorLabel(ctx.actor),
    createdByOperatorId: ctx.actor.kind === "operator" ? ctx.actor.id : null,
  });
  await audit(ctx, "key.create", {
    tenantId: params.tenantId,
    keyId,
    scopes: scopes.join(","),
    expiresAt: expiresAt?.toISOString(),
  });
  // A key minted in an operator's name is a credential of theirs (ASVS 2.2.3): tell them, never the token.
  if (ctx.actor.kind === "operator") {
    await noticeCredentialChange(ctx.sql, {
      operatorId: ctx.actor.id,
      change: "api_key_created",
      by: "self",
      details: [
        `Key: ${params.name} (${keyId}) in tenant ${tenant.slug}`,
        `Scopes: ${scopes.join(", ")}`,
        `Expires: ${expiresAt ? expiresAt.toISOString() : "never"}`,
      ],
    });
  }
  return { keyId, token, scopes, expiresAt };
}

/** The tenant is required: another tenant's key is "not found", exactly like a missing one. */
export const ZRevokeKey = z.object({ keyId: keyIdRule, tenantId: idRule });

/** Revokes an active key of one tenant (the console, any tenant-scoped caller); it stops authenticating on its next request. */
export async function revokeKey(ctx: AdminContext, input: z.input<typeof ZRevokeKey>): Promise<void> {
  const { keyId, tenantId } = parseInput(ZRevokeKey, input);
  if (!(await revokeApiKeyForTenant(ctx.sql, { keyId, tenantId }))) throw new AppError("not_found", `No active key ${keyId}`);
  await audit(ctx, "key.revoke", { tenantId, keyId });
}

export const ZRevokeKeyAsAdmin = z.object({ keyId: keyIdRule });

/**
 * The explicit admin form: any tenant's key by id (the CLI, run by someone with database access).
 * lib/mcp and lib/ui never call it (tests/security/tenant-required.test.ts).
 */
export async function revokeKeyAsAdmin(ctx: AdminContext, input: z.input<typeof ZRevokeKeyAsAdmin>): Promise<void> {
  const { keyId } = parseInput(ZRevokeKeyAsAdmin, input);
  if (!(await revokeApiKeyAsAdmin(ctx.sql, keyId))) throw new AppError("not_found", `No active key ${keyId}`);
  await audit(ctx, "key.revoke", { keyId, form: "admin" });
}
