import type { OAuthConfig } from "./config";

/**
 * Whether an RFC 8707 `resource` names this server's MCP endpoint. Compared after URL parsing,
 * which lowercases scheme and host (MCP 2025-11-25 "Canonical Server URI": servers SHOULD accept
 * uppercase scheme and host); anything else (path, port, query, trailing slash, a fragment, which
 * RFC 8707 §2 forbids) must match exactly.
 */
export function isCanonicalResource(resource: string, config: Pick<OAuthConfig, "resource">): boolean {
  if (resource.includes("#")) return false;
  try {
    return new URL(resource).href === new URL(config.resource).href;
  } catch {
    return false;
  }
}
