import { type NextRequest, NextResponse } from "next/server";

/**
 * Runs for every page (the matcher below leaves out /api, /.well-known, /_next and the favicon) and
 * does three things:
 *
 * 1. A per-request CSP nonce (ASVS 14.4.3). Next reads the nonce from the Content-Security-Policy
 *    request header and puts it on its own scripts; a script without it does not run. Pages must
 *    render per request for that (app/layout.tsx opts every page in).
 * 2. HSTS when the public URL is https (ASVS 14.4.5). Not in next.config.ts: `next build` bakes
 *    `headers()` into the routes manifest, so there it would follow the build's env, not the server's
 *    (an image built once and run behind https would never send it). Only page responses carry it;
 *    a browser remembers HSTS for the whole host from any one of them, and API clients ignore it.
 * 3. Convenience only: a console page requested without any session cookie is sent to the sign-in
 *    page. This is NOT an authorization check (a present cookie is not verified here); every page,
 *    route handler and server action calls requireOperator itself.
 */
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];

/** The console's top-level paths: each and everything below it redirects without a session cookie. */
const CONSOLE_PATHS = [
  "/overview",
  "/tasks",
  "/inbox",
  "/approvals",
  "/tenants",
  "/routes",
  "/workers",
  "/retention",
  "/audit",
  "/account",
  "/connections",
  "/webhooks",
];

/**
 * The OAuth consent page's Approve and Deny end in a redirect to the client's registered redirect
 * URI, and browsers apply `form-action` to a form post's redirects too (CSP3 §6.4.2): with
 * `'self'` a no-JavaScript approval would be blocked. Any redirect target there is one the server
 * validated against the client's registration, so that page drops only `form-action`.
 */
const CONSENT_PATH = "/oauth/authorize";

const HSTS = "max-age=31536000; includeSubDomains";

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (!decodable(pathname)) return malformedPath(pathname);
  // The HTTP API comes here only for the check above: its answers are JSON, not pages.
  if (pathname.startsWith(API_PREFIX)) return NextResponse.next();
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, pathname);
  const response = redirectToSignIn(request) ?? continueWithNonce(request, nonce, csp);
  response.headers.set("Content-Security-Policy", csp);
  if (servedOverHttps()) response.headers.set("Strict-Transport-Security", HSTS);
  return response;
}

const API_PREFIX = "/api/v1/";

/**
 * Whether the path's percent-encoding decodes. A lone `%` or escaped bytes that are not UTF-8 made
 * Next's router answer a bare 500 before any page or route handler ran (a dynamic segment such as
 * /api/v1/tasks/{id} is decoded there); the fault suite's bad-input corpus found it.
 */
function decodable(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/** 400 for a path that does not decode: the HTTP API's JSON error shape there, plain text elsewhere. */
function malformedPath(pathname: string): NextResponse {
  const message = "The request path has malformed percent-encoding";
  const headers = { "cache-control": "no-store, no-transform" };
  if (pathname.startsWith(API_PREFIX)) return NextResponse.json({ error: "invalid_path", message }, { status: 400, headers });
  return new NextResponse(message, { status: 400, headers: { ...headers, "content-type": "text/plain; charset=utf-8" } });
}

function redirectToSignIn(request: NextRequest): NextResponse | undefined {
  const { pathname, search } = request.nextUrl;
  if (!CONSOLE_PATHS.some((path) => pathname === path || pathname.startsWith(`${path}/`))) return undefined;
  if (SESSION_COOKIES.some((name) => request.cookies.has(name))) return undefined;
  const login = new URL("/login", request.url);
  login.searchParams.set("callbackUrl", pathname + search);
  return NextResponse.redirect(login);
}

/** The page renders with the CSP on its request headers (where Next finds the nonce) and `x-nonce` for the app's own use. */
function continueWithNonce(request: NextRequest, nonce: string, csp: string): NextResponse {
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("Content-Security-Policy", csp);
  return NextResponse.next({ request: { headers } });
}

/** 128 random bits, base64: the nonce must be unguessable and new on every response. */
function newNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

function contentSecurityPolicy(nonce: string, pathname: string): string {
  return [
    "frame-ancestors 'none'",
    "base-uri 'self'",
    ...(pathname === CONSENT_PATH ? [] : ["form-action 'self'"]),
    "object-src 'none'",
    // 'strict-dynamic': scripts that nonce'd scripts load (Next's chunks) run too, and 'self' is then
    // ignored by CSP3 browsers (kept for older ones). React needs eval only in development.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${process.env.NODE_ENV === "development" ? " 'unsafe-eval'" : ""}`,
    // 'unsafe-inline' for styles only: the console sets computed `style` attributes (progress bars,
    // route colours), which no nonce can cover. No nonce here either, since one would disable it.
    "style-src 'self' 'unsafe-inline'",
  ].join("; ");
}

/** Read per request, not at build time: the same build runs behind http locally and https in production. */
function servedOverHttps(): boolean {
  return (process.env.RUNIFOLD_PUBLIC_URL ?? process.env.NEXTAUTH_URL ?? "").startsWith("https://");
}

export const config = {
  // Every page, including the prefetches of console links (they must redirect like a visit does),
  // and the HTTP API's paths with segments (for the percent-encoding check only). Not /api/mcp,
  // whose path is fixed: its hot path pays nothing here.
  matcher: ["/((?!api/|\\.well-known/|_next/|favicon\\.ico).*)", "/api/v1/:path*"],
};
