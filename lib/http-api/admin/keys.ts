import { listApiKeys } from "../../../db/queries/api-keys";
import { createKey, revokeKey } from "../../admin";
import { jsonResponse } from "../responses";
import { type AdminCall, readJsonObject, visibleTenant } from "./context";
import { keysetPage, pageRequest } from "./pagination";

/** GET /api/v1/admin/tenants/{tenant}/keys: the tenant's API keys, newest first, never their secrets. */
export async function listKeysApi(call: AdminCall, [slug]: string[]): Promise<Response> {
  const tenant = await visibleTenant(call, slug as string);
  const keys = await listApiKeys(call.sql, tenant.id);
  const page = keysetPage(
    keys,
    pageRequest(call.url),
    (key) => [new Date(key.created_at).toISOString(), key.id],
    (key, [createdAt, id]) => {
      const at = new Date(key.created_at).toISOString();
      return at < (createdAt as string) || (at === createdAt && key.id < (id as string));
    },
    2,
  );
  return jsonResponse({ keys: page.items, nextCursor: page.nextCursor }, 200);
}

/**
 * POST /api/v1/admin/tenants/{tenant}/keys `{ name, scopes?, expiresInDays? }`: lib/admin createKey
 * (audited, minted in the operator's name); 201 with the token, the only time it is shown.
 */
export async function createKeyApi(call: AdminCall, [slug]: string[]): Promise<Response> {
  const tenant = await visibleTenant(call, slug as string);
  const body = await readJsonObject(call.request);
  const created = await createKey(call, { ...body, tenantId: tenant.id } as Parameters<typeof createKey>[1]);
  return jsonResponse({ ...created, tenant: tenant.slug }, 201);
}

/** DELETE /api/v1/admin/tenants/{tenant}/keys/{keyId}: revokes a key of that tenant (another tenant's is 404). */
export async function revokeKeyApi(call: AdminCall, [slug, keyId]: string[]): Promise<Response> {
  const tenant = await visibleTenant(call, slug as string);
  await revokeKey(call, { tenantId: tenant.id, keyId: keyId as string });
  return jsonResponse({ keyId, revoked: true }, 200);
}
