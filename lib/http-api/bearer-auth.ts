import type { Logger } from "@runifold/sdk";
import type { SqlHandle } from "../../db/client";
import { type Principal, type Scope, verifyApiKey } from "../auth";
import { apiError } from "./responses";

/** Resolves a bearer credential to its principal, or undefined for anything unusable. */
export type VerifyBearer = (sql: SqlHandle, token: string) => Promise<Principal | undefined>;

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
  const token = header?.startsWith("Bearer ") ? header.slice(7).trim() : "";
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
