import type postgres from "postgres";
import { createTenant } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { type LoopbackServer, serveRequests } from "./serve-requests";

/** A signal handler as createSignalHandler (lib/http-api) returns it. */
export type SignalHandler = (request: Request, params: { id: string; name: string }) => Promise<Response>;

const ROUTE = /^\/api\/v1\/tasks\/([^/]+)\/signals\/([^/]+)$/;

/**
 * POST /api/v1/tasks/{id}/signals/{name} on a loopback server, around the handler that
 * app/api/v1/tasks/[id]/signals/[name]/route.ts binds: path segments decoded as Next decodes them
 * (400 when they do not decode), the body streamed rather than buffered, as Next hands it over.
 */
export function startSignalServer(handleSignal: SignalHandler): Promise<LoopbackServer> {
  return serveRequests(
    (request) => {
      const match = ROUTE.exec(new URL(request.url).pathname);
      if (!match || request.method !== "POST") return new Response(null, { status: 404 });
      let params: { id: string; name: string };
      try {
        params = { id: decodeURIComponent(match[1] as string), name: decodeURIComponent(match[2] as string) };
      } catch {
        return new Response(null, { status: 400 });
      }
      return handleSignal(request, params);
    },
    { body: "streamed" },
  );
}

export type SignalTenants = {
  tenantA: string;
  tenantB: string;
  /** Keys of tenant A: all scopes, and one without tasks:write. Key of tenant B: all scopes. */
  keyA: string;
  readOnlyKeyA: string;
  keyB: string;
};

/** The two tenants (slugs `<prefix>-a`, `<prefix>-b`) and three keys the signal route's checks use. */
export async function createSignalTenants(sql: postgres.Sql, prefix: string): Promise<SignalTenants> {
  const a = await createTenant(sql, { slug: `${prefix}-a`, name: `${prefix} A` });
  const b = await createTenant(sql, { slug: `${prefix}-b`, name: `${prefix} B` });
  return {
    tenantA: a.id,
    tenantB: b.id,
    keyA: (await createApiKey(sql, { tenantId: a.id, name: "full" })).token,
    readOnlyKeyA: (await createApiKey(sql, { tenantId: a.id, name: "read", scopes: ["mcp", "tasks:read"] })).token,
    keyB: (await createApiKey(sql, { tenantId: b.id, name: "full" })).token,
  };
}
