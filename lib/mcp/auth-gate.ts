import type { Logger } from "@runifold/sdk";
import type { SqlHandle } from "../../db/client";
import { findTenantBySlug } from "../../db/queries/tenants";
import { type Principal, SCOPES, verifyApiKey } from "../auth";
import { jsonResponse } from "./json-rpc";

export type GateConfig = {
  sql: SqlHandle;
  logger: Logger;
  /** Origins allowed to call (browsers send Origin; a present, unlisted one is refused with 403). */
  allowedOrigins: string[];
  /** Test-only: unauthenticated requests act as this tenant. Only honoured on a loopback bind. */
  insecureLoopbackTenant?: string;
  host: string;
};

export type Authenticated = { principal: Principal; reauthorize: () => Promise<Principal | undefined> };

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost"]);
let warnedLoopback = false;

/**
 * The front door of /api/mcp: Origin check (403), then Bearer API key (401, with identical bodies
 * for missing, malformed, unknown, revoked and expired keys; no handler runs). The tenant comes from
 * the key alone.
 */
export async function authenticate(request: Request, config: GateConfig): Promise<Authenticated | Response> {
  const origin = request.headers.get("origin");
  if (origin !== null && !config.allowedOrigins.includes(origin)) {
    return jsonResponse({ error: "forbidden_origin", message: "Origin not allowed" }, 403);
  }
  const header = request.headers.get("authorization");
  if (header === null && config.insecureLoopbackTenant) return loopbackPrincipal(config);
  const token = header?.startsWith("Bearer ") ? header.slice(7).trim() : "";
  const principal = token ? await verifyApiKey(config.sql, token) : undefined;
  if (!principal) {
    if (token) config.logger.warn("mcp authentication failed", { keyId: /^rf_([0-9a-f]{16})_/.exec(token)?.[1] ?? "malformed" });
    return jsonResponse({ error: "invalid_token", message: "A valid API key is required (Authorization: Bearer rf_…)" }, 401, {
      "www-authenticate": 'Bearer realm="runifold", error="invalid_token"',
    });
  }
  return { principal, reauthorize: () => verifyApiKey(config.sql, token) };
}

async function loopbackPrincipal(config: GateConfig): Promise<Authenticated | Response> {
  if (!LOOPBACK_HOSTS.has(config.host)) {
    config.logger.error("RUNIFOLD_INSECURE_LOOPBACK_TENANT refused: HOST is not a loopback address", { host: config.host });
    return jsonResponse({ error: "invalid_token", message: "A valid API key is required (Authorization: Bearer rf_…)" }, 401);
  }
  if (!warnedLoopback) {
    warnedLoopback = true;
    config.logger.warn(
      "INSECURE: unauthenticated loopback requests act as a tenant (RUNIFOLD_INSECURE_LOOPBACK_TENANT); test use only",
      {
        tenant: config.insecureLoopbackTenant,
      },
    );
  }
  const resolve = async () => {
    const tenant = await findTenantBySlug(config.sql, config.insecureLoopbackTenant ?? "");
    if (!tenant || tenant.disabled_at) return undefined;
    return {
      tenantId: tenant.id,
      tenantSlug: tenant.slug,
      keyId: "loopback",
      scopes: [...SCOPES],
      maxTtlMs: tenant.max_ttl_ms,
    } satisfies Principal;
  };
  const principal = await resolve();
  if (!principal) return jsonResponse({ error: "invalid_token", message: "Loopback tenant not found" }, 401);
  return { principal, reauthorize: resolve };
}
