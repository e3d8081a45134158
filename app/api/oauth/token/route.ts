import { createTokenRoute } from "@/lib/server/oauth-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// POST – token endpoint: authorization_code (PKCE S256) and refresh_token (rotating).
const route = createTokenRoute();
export const POST = route.POST;
export const OPTIONS = route.OPTIONS;
