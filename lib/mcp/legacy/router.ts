import { McpError, RPC, errorResponse } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";

/** Protocol 2025-11-25 and older (initialize-based clients). */
export async function handleLegacyMessage(_deps: McpDeps, _call: McpCall, message: unknown): Promise<Response> {
  const id = (message as { id?: string | number }).id ?? null;
  return errorResponse(id, new McpError(RPC.methodNotFound, "This server speaks protocol 2026-07-28 on this endpoint", undefined, 400));
}
