import type { Logger } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import {
  isOperatorToken,
  type OperatorPrincipal,
  type OperatorTokenScope,
  type Principal,
  type Scope,
  verifyAccessToken,
  verifyApiKey,
  verifyOperatorToken,
} from "../auth";
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
  const token = bearerToken(request);
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

/** The Bearer credential of a request, "" when there is none (the scheme is case-insensitive, RFC 9110 §11.1). */
export function bearerToken(request: Request): string {
  const header = request.headers.get("authorization");
  return /^bearer[ \t]+(.+)$/i.exec(header?.trim() ?? "")?.[1]?.trim() ?? "";
}

/**
 * The admin API's front door (/api/v1/admin/*): only an operator API token (`rfo_…`, Account → API
 * tokens) passes, as its operator's current rights; a missing, malformed, unknown, revoked or expired
 * token, or one of a disabled operator, gets one identical 401, and a token without `scope` a 403.
 */
export async function authenticateOperatorBearer(
  request: Request,
  sql: SqlHandle,
  options: { logger: Logger; scope: OperatorTokenScope },
): Promise<OperatorPrincipal | Response> {
  const token = bearerToken(request);
  const principal = isOperatorToken(token) ? await verifyOperatorToken(sql, token) : undefined;
  if (!principal) {
    if (token)
      options.logger.warn("admin api authentication failed", {
        tokenId: /^rfo_([0-9a-f]{16})_/.exec(token)?.[1] ?? "malformed",
      });
    return apiError(401, "invalid_token", "A valid operator API token is required (Authorization: Bearer rfo_…)", {
      headers: { "www-authenticate": 'Bearer realm="runifold-admin", error="invalid_token"' },
    });
  }
  if (principal.scopes.includes(options.scope)) return principal;
  return apiError(403, "insufficient_scope", `This request requires the "${options.scope}" scope`, {
    headers: {
      "www-authenticate": `Bearer realm="runifold-admin", error="insufficient_scope", scope="${options.scope}"`,
    },
  });
}
