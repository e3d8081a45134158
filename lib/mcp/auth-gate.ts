import type { Logger } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import type { ApiKeyWithTenant } from "../../db/queries/api-keys";
import type { RouteRow } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { apiKeyIdOf, isLoopbackRequest, type Principal, principalOfKey, SCOPES, verifyAccessToken, verifyApiKey } from "../auth";
import {
  DEFAULT_MAX_ACTIVE_TASKS_PER_KEY,
  readApiKeyWithRoute,
  readApiKeyWithSession,
  readApiKeyWithTask,
  type SessionAhead,
  type TaskRecord,
} from "../tasks";
import { jsonResponse } from "./json-rpc";
import { sharedRecheck } from "./shared-recheck";

export type GateConfig = {
  sql: SqlHandle;
  logger: Logger;
  /** Origins allowed to call (browsers send Origin; a present, unlisted one is refused with 403). */
  allowedOrigins: string[];
  /** Test-only: unauthenticated requests act as this tenant. Only honoured on a loopback bind. */
  insecureLoopbackTenant?: string;
  host: string;
  /**
   * OAuth on (RUNIFOLD_PUBLIC_URL set): access tokens are accepted beside API keys, bound to
   * `resource`, and every 401 names `resourceMetadataUrl` (RFC 9728 §5.1) so clients can discover
   * the authorization server. Absent: API keys only, and no challenge sends clients to OAuth.
   */
  oauth?: GateOAuth;
  /** The cap on a credential's live tasks (RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY), for the tools/call read-ahead. */
  maxActiveTasksPerKey?: number;
};

export type GateOAuth = { resource: string; resourceMetadataUrl: string };

/** A task the gate read with the credential (modern tasks/get): `record` undefined = not in the key's tenant. */
export type PrefetchedTask = { taskId: string; record: TaskRecord | undefined };

/** A tool the gate read with the credential (modern tools/call): its route (undefined = not routed) and the cap check. */
export type PrefetchedTool = { toolName: string; route: RouteRow | undefined; atCap: boolean };

/** The legacy session the gate read with the credential: `session` undefined = not this credential's live one. */
export type PrefetchedSession = { sessionSha256: string; session: SessionAhead | undefined };

/**
 * What a legacy request names in its body and Mcp-Session-Id, for the gate to read with the key
 * (legacy/read-ahead.ts): the session, and the task of a tasks/get or the tool of a tools/call.
 */
export type LegacyReadAhead = {
  sessionSha256: string;
  taskId?: string;
  toolName?: string;
  ttlMs: number;
  slideEveryMs: number;
};

export type Authenticated = {
  principal: Principal;
  reauthorize: () => Promise<Principal | undefined>;
  prefetchedTask?: PrefetchedTask;
  prefetchedTool?: PrefetchedTool;
  prefetchedSession?: PrefetchedSession;
};

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost"]);
let warnedLoopback = false;

/**
 * Every 401 carries a challenge (RFC 9110 §15.5.2: "MUST send a WWW-Authenticate header field"),
 * in every mode, the loopback test mode included. With no credentials at all, the challenge has no
 * error code (RFC 6750 §3.1: SHOULD NOT include error information); with bad ones, invalid_token.
 * With OAuth on it also names the Protected Resource Metadata (RFC 9728 §5.1) and the scopes to ask
 * for (MCP 2025-11-25 "Protected Resource Metadata Discovery Requirements": SHOULD include scope).
 */
const REALM = 'Bearer realm="runifold"';
const KEY_REQUIRED = "A valid API key is required (Authorization: Bearer rf_…)";
const CREDENTIAL_REQUIRED = "A valid API key or OAuth access token is required (Authorization: Bearer …)";

export function bearerChallenge(options: { credentialsSent: boolean; oauth?: GateOAuth }): string {
  const parts = [REALM];
  if (options.credentialsSent) parts.push('error="invalid_token"');
  if (options.oauth) parts.push(`resource_metadata="${options.oauth.resourceMetadataUrl}"`, `scope="${SCOPES.join(" ")}"`);
  return parts.join(", ");
}

function unauthorized(config: GateConfig, credentialsSent: boolean, message?: string): Response {
  const challenge = bearerChallenge({ credentialsSent, oauth: config.oauth });
  const text = message ?? (config.oauth ? CREDENTIAL_REQUIRED : KEY_REQUIRED);
  return jsonResponse({ error: "invalid_token", message: text }, 401, { "www-authenticate": challenge });
}

/** The token of an `Authorization: Bearer <token>` header; the scheme is case-insensitive (RFC 9110 §11.1). */
export function bearerToken(header: string | null): string {
  const match = header === null ? null : /^bearer[ \t]+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim() ?? "";
}

/**
 * The front door of /api/mcp: Origin check (403), then the Bearer credential — an API key (`rf_…`)
 * or, with OAuth on, an access token for this resource — (401, with identical bodies for missing,
 * malformed, unknown, revoked and expired credentials; no handler runs). The tenant comes from the
 * credential alone.
 */
export async function authenticate(
  request: Request,
  config: GateConfig,
  legacy?: LegacyReadAhead,
): Promise<Authenticated | Response> {
  const origin = request.headers.get("origin");
  if (origin !== null && !config.allowedOrigins.includes(origin)) {
    return jsonResponse({ error: "forbidden_origin", message: "Origin not allowed" }, 403);
  }
  const header = request.headers.get("authorization");
  if (header === null && config.insecureLoopbackTenant) return loopbackPrincipal(request, config);
  const token = bearerToken(header);
  const verify = credentialVerifier(config);
  const keyId = apiKeyIdOf(token);
  const ahead = keyId ? await readAhead(config, keyId, request.headers, legacy) : undefined;
  const principal = !token ? undefined : ahead ? principalOfKey(config.sql, token, ahead.key) : await verify(token);
  if (!principal) {
    if (token) config.logger.warn("mcp authentication failed", { credential: describeCredential(token) });
    return unauthorized(config, header !== null);
  }
  // Long-lived streams re-check the credential every round: one check per credential per second, shared.
  return { principal, reauthorize: sharedRecheck(token, verify), ...ahead?.prefetched };
}

type ReadAhead = {
  key: ApiKeyWithTenant | undefined;
  prefetched: Pick<Authenticated, "prefetchedTask" | "prefetchedTool" | "prefetchedSession">;
};

/**
 * What a modern request names in its routing headers (2026-07-28 Streamable HTTP: `Mcp-Method`, and
 * `Mcp-Name` carrying a tasks/get's task id or a tools/call's tool name), read together with the API
 * key in one round trip (readApiKeyWithTask, readApiKeyWithRoute); undefined for anything else, which
 * authenticates as usual. The body still decides: a method uses the read only for the same id or
 * name, and the envelope check refuses a request whose headers and body disagree (-32020).
 */
async function readAhead(
  config: GateConfig,
  keyId: string,
  headers: Headers,
  legacy: LegacyReadAhead | undefined,
): Promise<ReadAhead | undefined> {
  const method = headers.get("mcp-method");
  const name = headers.get("mcp-name");
  if (!name) return legacy ? readLegacyAhead(config, keyId, legacy) : undefined;
  if (method === "tasks/get") {
    const read = await readApiKeyWithTask(config.sql, { keyId, taskId: name });
    return { key: read?.key, prefetched: { prefetchedTask: { taskId: name, record: read?.task } } };
  }
  if (method === "tools/call") {
    const cap = config.maxActiveTasksPerKey ?? DEFAULT_MAX_ACTIVE_TASKS_PER_KEY;
    const read = await readApiKeyWithRoute(config.sql, { keyId, toolName: name, cap });
    const prefetchedTool = { toolName: name, route: read?.route, atCap: read?.atCap ?? false };
    return { key: read?.key, prefetched: { prefetchedTool } };
  }
  return undefined;
}

/** A legacy request's session (and tasks/get's task) read with the key: readApiKeyWithSession. */
async function readLegacyAhead(config: GateConfig, keyId: string, legacy: LegacyReadAhead): Promise<ReadAhead> {
  const cap = config.maxActiveTasksPerKey ?? DEFAULT_MAX_ACTIVE_TASKS_PER_KEY;
  const read = await readApiKeyWithSession(config.sql, { keyId, cap, ...legacy });
  const prefetchedSession = { sessionSha256: legacy.sessionSha256, session: read?.session };
  const prefetchedTask = legacy.taskId === undefined ? undefined : { taskId: legacy.taskId, record: read?.task };
  const prefetchedTool =
    legacy.toolName === undefined ? undefined : { toolName: legacy.toolName, route: read?.route, atCap: read?.atCap ?? false };
  return {
    key: read?.key,
    prefetched: {
      prefetchedSession,
      ...(prefetchedTask ? { prefetchedTask } : {}),
      ...(prefetchedTool ? { prefetchedTool } : {}),
    },
  };
}

/** API keys by their prefix; anything else is an OAuth access token, when OAuth is on. */
function credentialVerifier(config: GateConfig): (token: string) => Promise<Principal | undefined> {
  const oauth = config.oauth;
  return (token) => {
    if (token.startsWith("rf_")) return verifyApiKey(config.sql, token);
    return oauth ? verifyAccessToken(config.sql, token, { resource: oauth.resource }) : Promise.resolve(undefined);
  };
}

/** What a failed credential may be logged as: a key's public id, or only its kind (never a secret). */
export function describeCredential(token: string): string {
  const keyId = /^rf_([0-9a-f]{16})_/.exec(token)?.[1];
  if (keyId) return `key:${keyId}`;
  if (token.startsWith("rfa_")) return "oauth_access_token";
  if (token.startsWith("rfr_")) return "oauth_refresh_token";
  return "malformed";
}

async function loopbackPrincipal(request: Request, config: GateConfig): Promise<Authenticated | Response> {
  // M2: the HOST setting and the request's real connection (peer and accepting address) must both be loopback.
  if (!LOOPBACK_HOSTS.has(config.host) || !isLoopbackRequest(request)) {
    config.logger.error("RUNIFOLD_INSECURE_LOOPBACK_TENANT refused: not a loopback connection", { host: config.host });
    return unauthorized(config, false);
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
  if (!principal) return unauthorized(config, false, "Loopback tenant not found");
  return { principal, reauthorize: resolve };
}
