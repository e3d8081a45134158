import { listTenants } from "../../../db/queries/tenants";
import { jsonResponse } from "../responses";
import type { AdminCall } from "./context";
import { keysetPage, pageRequest } from "./pagination";

/** GET /api/v1/admin/tenants: the tenants the token's operator may see, by slug. */
export async function listTenantsApi(call: AdminCall): Promise<Response> {
  const scope = call.principal.tenantIds;
  const visible = (await listTenants(call.sql))
    .filter((tenant) => scope === null || scope.includes(tenant.id))
    .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const page = keysetPage(
    visible,
    pageRequest(call.url),
    (tenant) => [tenant.slug],
    (tenant, [slug]) => tenant.slug > (slug as string),
  );
  return jsonResponse({ tenants: page.items, nextCursor: page.nextCursor }, 200);
}
