import type { SqlHandle } from "@runifold/store";
import { type Authenticated, authenticate } from "./auth-gate";
import { gateConfigOf, type McpHandlerDeps } from "./create-mcp-handler";
import { jsonResponse, RPC, rpcError } from "./json-rpc";
import { hasScope } from "./scopes";
import { MODERN_PROTOCOL_VERSIONS } from "./server-info";

/** True when the request states a 2026-07-28 (or later) version: that era has no sessions and no GET stream. */
export function statesModernVersion(headers: Headers): boolean {
  const version = headers.get("mcp-protocol-version");
  return version !== null && version.trim() >= (MODERN_PROTOCOL_VERSIONS[0] as string);
}

/**
 * The front door of the session verbs (GET's standalone stream, DELETE), exactly POST's: Origin,
 * then an API key or OAuth token, then the `mcp` scope every request needs (a 403 naming it, with
 * the resource metadata when OAuth is on, RFC 6750 §3.1 / RFC 9728 §5.1).
 */
export async function authenticateSessionRequest(
  request: Request,
  deps: McpHandlerDeps,
  sql: SqlHandle,
): Promise<Authenticated | Response> {
  const gate = await authenticate(request, gateConfigOf(deps, sql));
  if (gate instanceof Response || hasScope(gate.principal, "mcp")) return gate;
  const metadata = deps.oauth ? `, resource_metadata="${deps.oauth.resourceMetadataUrl}"` : "";
  return jsonResponse(rpcError(null, RPC.invalidRequest, 'Insufficient scope: this request requires the "mcp" scope'), 403, {
    "www-authenticate": `Bearer error="insufficient_scope", scope="mcp"${metadata}`,
  });
}
