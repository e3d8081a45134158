import { createAuthorizationServerMetadataRoute } from "@/lib/server/oauth-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// GET – RFC 8414 Authorization Server Metadata (404 while OAuth is off).
const route = createAuthorizationServerMetadataRoute();
export const GET = route.GET;
export const OPTIONS = route.OPTIONS;
