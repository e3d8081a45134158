import type { Logger } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { type Principal, type Scope, verifyAccessToken, verifyApiKey } from "../auth";
import { apiError } from "./responses";

/** Resolves a bearer credential to its principal, or undefined for anything unusable. */
export type VerifyBearer = (sql: SqlHandle, token: string) => Promise<Principal | undefined>;

/**
 * The same rule as /api/mcp's gate: `rf_…` is an API key; anything else is an OAuth access token
 * when OAuth is on (bound to the server's one resource, `<public URL>/api/mcp`, the only audience
 * this authorization server issues tokens for).
 */
export function bearerVerifier(oauth?: { resource: string }): VerifyBearer {
  return (sql, token) => {
    if (token.startsWith("rf_")) return verifyApiKey(sql, token);
    return oauth ? verifyAccessToken(sql, token, { resource: oauth.resource }) : Promise.resolve(undefined);
  };
}

/**
 * The HTTP API's front door, the same rule as /api/mcp's auth gate: a Bearer credential becomes a
 * Principal (the tenant comes from it alone), and a missing, malformed, unknown, revoked or expired
 * one gets one identical 401 carrying `WWW-Authenticate: Bearer`.
 */
export async function authenticateBearer(
  request: Request,
  sql: SqlHandle,
  options: { logger: Logger; verify?: VerifyBearer },
): Promise<Principal | Response> {
  const header = request.headers.get("authorization");
  // The scheme is case-insensitive (RFC 9110 §11.1).
  const token = /^bearer[ \t]+(.+)$/i.exec(header?.trim() ?? "")?.[1]?.trim() ?? "";
  const principal = token ? await (options.verify ?? verifyApiKey)(sql, token) : undefined;
  if (principal) return principal;
  if (token)
    options.logger.warn("http api authentication failed", { keyId: /^rf_([0-9a-f]{16})_/.exec(token)?.[1] ?? "malformed" });
  return apiError(401, "invalid_token", "A valid API key is required (Authorization: Bearer rf_…)", {
    headers: { "www-authenticate": 'Bearer realm="runifold", error="invalid_token"' },
  });
}

/** 403 per RFC 6750 §3.1 when the credential lacks `scope`; undefined when it has it. */
export function missingScope(principal: Principal, scope: Scope): Response | undefined {
  if (principal.scopes.includes(scope)) return undefined;
  return apiError(403, "insufficient_scope", `This request requires the "${scope}" scope`, {
    headers: { "www-authenticate": `Bearer realm="runifold", error="insufficient_scope", scope="${scope}"` },
  });
}
