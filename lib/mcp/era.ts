import { isRecord } from "./json-rpc";
import { META, MODERN_PROTOCOL_VERSIONS } from "./server-info";

/**
 * Which protocol leg a POST body belongs to: modern iff the request claims a 2026 protocol version
 * in its _meta or its version header. That holds for `initialize` too: "a request carrying modern
 * per-request _meta is served statelessly according to this revision" (2026-07-28 versioning.mdx),
 * where initialize does not exist (404, -32601; review3 D7); a plain initialize stays legacy. The router dispatches on it,
 * and the web's request metrics label by it (lib/server/mcp-observe.ts), so both say the same.
 */
export function isModernMessage(body: unknown, headers: Headers): boolean {
  if (!isRecord(body)) return false;
  const params = isRecord(body.params) ? body.params : undefined;
  const meta = params && isRecord(params._meta) ? params._meta : undefined;
  if (meta && typeof meta[META.protocolVersion] === "string") return true;
  const header = headers.get("mcp-protocol-version");
  return header !== null && header >= (MODERN_PROTOCOL_VERSIONS[0] as string);
}
