import { createRevocationRoute } from "@/lib/server/oauth-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// POST – RFC 7009 token revocation (revokes the token's whole grant).
const route = createRevocationRoute();
export const POST = route.POST;
export const OPTIONS = route.OPTIONS;
