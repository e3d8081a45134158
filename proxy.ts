import { type NextRequest, NextResponse } from "next/server";

/**
 * Convenience only: a console page requested without any session cookie is sent to the sign-in
 * page. This is NOT an authorization check (a present cookie is not verified here); every page,
 * route handler and server action calls requireOperator itself. /api is left out on purpose.
 */
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];

export function proxy(request: NextRequest) {
  if (SESSION_COOKIES.some((name) => request.cookies.has(name))) return NextResponse.next();
  const login = new URL("/login", request.url);
  login.searchParams.set("callbackUrl", request.nextUrl.pathname + request.nextUrl.search);
  return NextResponse.redirect(login);
}

export const config = {
  matcher: [
    "/overview/:path*",
    "/tasks/:path*",
    "/inbox/:path*",
    "/tenants/:path*",
    "/routes/:path*",
    "/workers/:path*",
    "/retention/:path*",
    "/audit/:path*",
    "/account/:path*",
    "/connections/:path*",
    "/webhooks/:path*",
  ],
};
