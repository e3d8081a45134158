import type { Logger } from "@runifold/sdk";
import type { SqlHandle } from "../../db/client";
import { findTenantBySlug } from "../../db/queries/tenants";
import { isLoopbackRequest, type Principal, SCOPES, verifyApiKey } from "../auth";
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
 * Every 401 carries a challenge (RFC 9110 §15.5.2: "MUST send a WWW-Authenticate header field"),
 * in every mode, the loopback test mode included. With no credentials at all, the challenge has no
 * error code (RFC 6750 §3.1: SHOULD NOT include error information); with bad ones, invalid_token.
 */
const CHALLENGE = 'Bearer realm="runifold"';
const BAD_TOKEN_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;
const KEY_REQUIRED = "A valid API key is required (Authorization: Bearer rf_…)";

function unauthorized(message: string, challenge: string): Response {
  return jsonResponse({ error: "invalid_token", message }, 401, { "www-authenticate": challenge });
}

/** The token of an `Authorization: Bearer <token>` header; the scheme is case-insensitive (RFC 9110 §11.1). */
export function bearerToken(header: string | null): string {
  const match = header === null ? null : /^bearer[ \t]+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim() ?? "";
}

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
  if (header === null && config.insecureLoopbackTenant) return loopbackPrincipal(request, config);
  const token = bearerToken(header);
  const principal = token ? await verifyApiKey(config.sql, token) : undefined;
  if (!principal) {
    if (token) config.logger.warn("mcp authentication failed", { keyId: /^rf_([0-9a-f]{16})_/.exec(token)?.[1] ?? "malformed" });
    return unauthorized(KEY_REQUIRED, header === null ? CHALLENGE : BAD_TOKEN_CHALLENGE);
  }
  return { principal, reauthorize: () => verifyApiKey(config.sql, token) };
}

async function loopbackPrincipal(request: Request, config: GateConfig): Promise<Authenticated | Response> {
  // M2: the HOST setting and the request's real connection (peer and accepting address) must both be loopback.
  if (!LOOPBACK_HOSTS.has(config.host) || !isLoopbackRequest(request)) {
    config.logger.error("RUNIFOLD_INSECURE_LOOPBACK_TENANT refused: not a loopback connection", { host: config.host });
    return unauthorized(KEY_REQUIRED, CHALLENGE);
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
      actor: "key:loopback",
      scopes: [...SCOPES],
      maxTtlMs: tenant.max_ttl_ms,
    } satisfies Principal;
  };
  const principal = await resolve();
  if (!principal) return unauthorized("Loopback tenant not found", CHALLENGE);
  return { principal, reauthorize: resolve };
}
