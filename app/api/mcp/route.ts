import {
  createWebMcpHandler,
  createWebMcpPreflight,
  createWebMcpSessionDelete,
  createWebMcpStandaloneStream,
} from "@/lib/server/mcp-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// POST /api/mcp – MCP over Streamable HTTP, both protocol eras, authenticated by API key or OAuth token.
export const POST = createWebMcpHandler();
// GET /api/mcp – a legacy session's standalone SSE stream (its tasks' questions); 405 without a session.
export const GET = createWebMcpStandaloneStream();
// DELETE /api/mcp – a legacy client ends its Mcp-Session-Id session.
export const DELETE = createWebMcpSessionDelete();
// OPTIONS /api/mcp – CORS preflight for browser clients on RUNIFOLD_ALLOWED_ORIGINS.
export const OPTIONS = createWebMcpPreflight();
