import { z } from "zod";
import { createTenant as insertTenant, type TenantRow } from "../../db/queries/tenants";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { conflictOnDuplicate } from "./conflicts";
import { parseInput } from "./parse-input";
import { slugRule, tenantNameRule } from "./rules";

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
  audit(ctx.actor, "tenant.create", { tenantId: tenant.id, slug });
  return tenant;
}
