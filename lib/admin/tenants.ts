import { z } from "zod";
import {
  createTenant as insertTenant,
  type TenantRow,
  setTenantDisabled as updateTenantDisabled,
  setTenantHandleTools as updateTenantHandleTools,
  setTenantMaxConcurrentRuns as updateTenantMaxConcurrentRuns,
} from "../../db/queries/tenants";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { conflictOnDuplicate } from "./conflicts";
import { parseInput } from "./parse-input";
import { idRule, slugRule, tenantNameRule } from "./rules";

export const ZCreateTenant = z.object({
  slug: slugRule,
  /** Defaults to the slug. */
  name: tenantNameRule.optional(),
});

export async function createTenant(ctx: AdminContext, input: z.input<typeof ZCreateTenant>): Promise<TenantRow> {
  const { slug, name } = parseInput(ZCreateTenant, input);
  const tenant = await conflictOnDuplicate(
    () => insertTenant(ctx.sql, { slug, name: name ?? slug }),
    `Tenant "${slug}" already exists`,
  );
  await audit(ctx, "tenant.create", { tenantId: tenant.id, slug });
  return tenant;
}

export const ZSetTenantDisabled = z.object({ tenantId: idRule, disabled: z.boolean() });

/**
 * Disables (or enables) a tenant. While disabled its API keys answer 401 exactly like unknown
 * ones (lib/auth verifyApiKey), so its tasks, tools and signals answer like an unknown tenant's;
 * runs already queued stay in the store untouched until it is enabled again.
 */
export async function setTenantDisabled(ctx: AdminContext, input: z.input<typeof ZSetTenantDisabled>): Promise<TenantRow> {
  const { tenantId, disabled } = parseInput(ZSetTenantDisabled, input);
  const tenant = await updateTenantDisabled(ctx.sql, { tenantId, disabled });
  if (!tenant) throw new AppError("not_found");
  await audit(ctx, disabled ? "tenant.disable" : "tenant.enable", { tenantId: tenant.id, slug: tenant.slug });
  return tenant;
}

export const ZSetTenantHandleTools = z.object({ tenantId: idRule, on: z.boolean() });

/**
 * Task handles for clients without tasks (docs/clients.md "Task handles"): on (the default), such
 * clients see the companion tools (runifold_task_status, _wait, _answer, _cancel, _list) and a call
 * that outlives its deadline answers with a handle; off, the tools are not listed and such a call
 * answers the "still running" tool error.
 */
export async function setTenantHandleTools(ctx: AdminContext, input: z.input<typeof ZSetTenantHandleTools>): Promise<TenantRow> {
  const { tenantId, on } = parseInput(ZSetTenantHandleTools, input);
  const tenant = await updateTenantHandleTools(ctx.sql, { tenantId, on });
  if (!tenant) throw new AppError("not_found");
  await audit(ctx, "tenant.handle_tools", { tenantId: tenant.id, slug: tenant.slug, on });
  return tenant;
}

export const ZSetTenantMaxConcurrentRuns = z.object({ tenantId: idRule, max: z.number().int().min(1).max(1_000_000).nullable() });

/**
 * A tenant's cap on runs leased at once, across every worker (docs/deploy.md, "Per-tenant
 * capacity"): null returns it to the workers' default, a share of the fleet's slots
 * (RUNIFOLD_TENANT_SHARE). Claims read it on every claim, so it holds from the next one.
 */
export async function setTenantMaxConcurrentRuns(
  ctx: AdminContext,
  input: z.input<typeof ZSetTenantMaxConcurrentRuns>,
): Promise<TenantRow> {
  const { tenantId, max } = parseInput(ZSetTenantMaxConcurrentRuns, input);
  const tenant = await updateTenantMaxConcurrentRuns(ctx.sql, { tenantId, max });
  if (!tenant) throw new AppError("not_found");
  await audit(ctx, "tenant.max_concurrent_runs", { tenantId: tenant.id, slug: tenant.slug, max });
  return tenant;
}
