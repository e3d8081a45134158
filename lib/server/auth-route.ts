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
    const bounded = new NextRequest(request.url, { method: "POST", headers: request.headers, body: body.bytes.slice() });
    return handler(bounded, context);
  };
}
