import { createWebMcpHandler, createWebMcpMethodNotAllowed, createWebMcpPreflight } from "@/lib/server/mcp-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// POST /api/mcp – MCP over Streamable HTTP, both protocol eras, authenticated by API key or OAuth token.
export const POST = createWebMcpHandler();
// GET/DELETE /api/mcp – stateless server: no standalone SSE stream, no sessions to delete.
export const GET = createWebMcpMethodNotAllowed();
export const DELETE = createWebMcpMethodNotAllowed();
// OPTIONS /api/mcp – CORS preflight for browser clients on RUNIFOLD_ALLOWED_ORIGINS.
export const OPTIONS = createWebMcpPreflight();
