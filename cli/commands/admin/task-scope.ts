import type { SqlHandle } from "@runifold/store";
import { verifyApiKey } from "../../../lib/auth";
import { CliError } from "../../args";
import { requireTenant } from "../../db";

/**
 * Which tenants a store command of the `tasks` group may look in: the API key's tenant when a key is
 * given (as `tasks get` is scoped), the `--tenant` slug's tenant, and both only when they agree — an
 * empty list then, so the task is "not found" like an unknown one. `null` (neither given) means any
 * tenant: an operator on the server host reads every tenant's tasks, as the console does.
 */
export async function taskScope(sql: SqlHandle, given: { key?: string; slug?: string }): Promise<string[] | null> {
  if (!given.key && !given.slug) return null;
  let keyTenant: string | undefined;
  if (given.key) {
    const principal = await verifyApiKey(sql, given.key);
    if (!principal) throw new CliError("The API key is not valid (check --key or RUNIFOLD_KEY)");
    keyTenant = principal.tenantId;
  }
  if (!given.slug) return [keyTenant as string];
  const tenant = await requireTenant(sql, given.slug);
  if (keyTenant !== undefined && keyTenant !== tenant.id) return [];
  return [tenant.id];
}
