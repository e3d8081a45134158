import { methodNotAllowed } from "@/lib/mcp";
import { createWebMcpHandler } from "@/lib/server/mcp-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// POST /api/mcp – MCP over Streamable HTTP, both protocol eras, authenticated by API key.
export const POST = createWebMcpHandler();
// GET/DELETE /api/mcp – stateless server: no standalone SSE stream, no sessions to delete.
export const GET = methodNotAllowed;
export const DELETE = methodNotAllowed;
