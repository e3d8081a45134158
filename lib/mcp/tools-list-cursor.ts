import { McpError, RPC } from "./json-rpc";

/**
 * tools/list is one page (a tenant has few tools), so this server never issues a `nextCursor` and
 * every cursor a client sends is one it never issued: -32602 in both eras (2026-07-28
 * server/utilities/pagination.mdx "Invalid cursors SHOULD result in an error with code -32602";
 * 2025-11-25 pagination.mdx says the same), never a silent page 1.
 */
export function refuseForeignCursor(params: Record<string, unknown>): void {
  if (params.cursor !== undefined) throw new McpError(RPC.invalidParams, "Invalid cursor");
}
