import { createRegistrationRoute } from "@/lib/server/oauth-route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// POST – RFC 7591 Dynamic Client Registration (public clients).
const route = createRegistrationRoute();
export const POST = route.POST;
export const OPTIONS = route.OPTIONS;
