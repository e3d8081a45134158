import { createMcpRouteHandler, methodNotAllowed } from "@/lib/mcp";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// POST /api/mcp – MCP over Streamable HTTP, both protocol eras, authenticated by API key.
export const POST = createMcpRouteHandler();
// GET/DELETE /api/mcp – stateless server: no standalone SSE stream, no sessions to delete.
export const GET = methodNotAllowed;
export const DELETE = methodNotAllowed;
