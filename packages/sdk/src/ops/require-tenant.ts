/**
 * The guard of the tenant-scoped operations (cancelRunForTenant, provideInputForTenant,
 * sendSignalForTenant; security review L10). Their old forms treated a missing tenant as "any
 * tenant", so a caller that lost the tenant on the way acted globally without a sign. Now a missing
 * or empty tenant is refused here, before any query; acting on any tenant is a separate, explicitly
 * named `…AsAdmin` form (the CLI, the engine's own tenant-less internals).
 */
export function requireTenantId(tenantId: unknown, operation: string): asserts tenantId is string {
  if (typeof tenantId === "string" && tenantId.length > 0) return;
  throw new TypeError(
    `${operation}: tenantId is required (a tenant-scoped operation never falls back to every tenant; ` +
      `${operation.replace(/ForTenant$/, "AsAdmin")} is the any-tenant form)`,
  );
}
