/**
 * Next.js door of lib/auth: the next-auth options and the request-bound operator context. Server
 * components, route handlers and server actions import this; the CLI, workers and tests outside
 * Next use lib/auth/index.ts, which never loads next-auth or the server-only marker.
 */
export { authOptions, buildAuthOptions, currentSignInMethods, SSO_ERROR_PREFIX, THROTTLED_ERROR } from "./operator-auth";
export { webContext } from "./web-context";
