import { createProtectedResourceMetadataRoute } from "@/lib/server/oauth-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// GET – RFC 9728 Protected Resource Metadata of /api/mcp (404 while OAuth is off).
const route = createProtectedResourceMetadataRoute();
export const GET = route.GET;
export const OPTIONS = route.OPTIONS;
