import { createAuthRoute } from "@/lib/server/auth-route";

// GET|POST /api/auth/* – next-auth (sign-in with email and password, sign-out, CSRF token, session),
// its POST bodies capped before next-auth reads them.
const handler = createAuthRoute();

export { handler as GET, handler as POST };
