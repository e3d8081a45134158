import { NextRequest } from "next/server";
import NextAuth from "next-auth";
import { authOptions } from "../auth/web";
import { readCappedBody } from "../http-api";

/**
 * Sign-in, sign-out and CSRF forms are a few hundred bytes; 64 KiB leaves room for any provider's
 * callback while keeping an unauthenticated body from filling memory (ASVS 13.1.x; review M3).
 */
export const AUTH_BODY_LIMIT_BYTES = 65_536;

type RouteContext = { params: Promise<{ nextauth: string[] }> };

/**
 * /api/auth/* – next-auth behind a streamed body cap. next-auth reads the whole body itself
 * (`req.text()`), with no limit, before anything checks who is asking; here the body is read up to
 * the cap (a chunked body or a false Content-Length is cut off at the cap) and handed on as bytes.
 */
export function createAuthRoute(): (request: NextRequest, context: RouteContext) => Promise<Response> {
  const handler = NextAuth(authOptions) as (request: NextRequest, context: RouteContext) => Promise<Response>;
  return async (request, context) => {
    if (request.method !== "POST") return handler(request, context);
    const body = await readCappedBody(request, AUTH_BODY_LIMIT_BYTES);
    if (body.kind === "too_large") {
      return Response.json(
        { error: "payload_too_large", message: `Request body exceeds ${AUTH_BODY_LIMIT_BYTES} bytes` },
        { status: 413 },
      );
    }
    if (body.kind === "unreadable")
      return Response.json({ error: "bad_request", message: "Unreadable request body" }, { status: 400 });
    // No form of these carries U+0000 (raw, %00 or \u0000), and Postgres text cannot store it: a
    // sign-in with one would fail in the throttle's query, and next-auth puts that error in its URL.
    // next-auth throws (a 500) on a JSON body that does not parse.
    const text = Buffer.from(body.bytes).toString("latin1");
    if (text.includes("\u0000") || /%00|\\u0000/i.test(text) || !parsesAsDeclared(request.headers, body.bytes))
      return Response.json({ error: "bad_request", message: "Malformed request body" }, { status: 400 });
    const bounded = new NextRequest(request.url, { method: "POST", headers: request.headers, body: body.bytes.slice() });
    return handler(bounded, context);
  };
}

/** A body next-auth will parse as JSON (its rule: the content type includes application/json) must be JSON. */
function parsesAsDeclared(headers: Headers, bytes: Uint8Array): boolean {
  if (!headers.get("content-type")?.includes("application/json")) return true;
  try {
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** Where /login/csrf sends the browser back to, marked so that a browser refusing cookies sees a message, not a loop. */
export const CSRF_ISSUED_PARAM = "csrf";

/**
 * GET /login/csrf?<login query>: sets next-auth's CSRF cookie (next-auth's own /api/auth/csrf answer,
 * run in this request) and sends the browser back to /login with it. The login page comes here when
 * the browser has no such cookie yet, so that its form can carry the token as a hidden field and
 * post to next-auth directly: a sign-in submitted before the page's scripts load is then a POST
 * that signs in, never a GET with the password in the URL (ASVS 8.3.1).
 */
export async function issueSignInCsrf(request: NextRequest): Promise<Response> {
  const handler = NextAuth(authOptions) as (request: NextRequest, context: RouteContext) => Promise<Response>;
  const csrf = await handler(new NextRequest(new URL("/api/auth/csrf", request.url), { headers: request.headers }), {
    params: Promise.resolve({ nextauth: ["csrf"] }),
  });
  const back = new URLSearchParams(request.nextUrl.searchParams);
  back.set(CSRF_ISSUED_PARAM, "issued");
  // A relative Location: the browser resolves it against the URL it asked for, whatever Host the proxy sent.
  const response = new Response(null, { status: 303, headers: { location: `/login?${back}`, "cache-control": "no-store" } });
  for (const cookie of csrf.headers.getSetCookie()) response.headers.append("set-cookie", cookie);
  return response;
}
