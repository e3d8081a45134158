/**
 * CORS for the endpoints browser-based MCP clients call directly (/api/mcp and the OAuth endpoints),
 * for the origins listed in RUNIFOLD_ALLOWED_ORIGINS (plus the public URL's own origin).
 *
 * A listed origin gets a preflight answer and the CORS headers on every real response — 401s and
 * 403s included, since a browser client must read `WWW-Authenticate` to start OAuth discovery. An
 * unlisted origin gets a 403 and no CORS headers at all, so the browser exposes nothing (the MCP
 * transports require servers to validate Origin: 2025-11-25 basic/transports "Security Warning").
 */

/** Request headers an MCP client sends (both eras' transports, OAuth, resumable SSE). */
export const CORS_ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
  "last-event-id",
] as const;

/** Response headers a browser client must be able to read. */
export const CORS_EXPOSED_HEADERS = ["www-authenticate", "mcp-session-id", "mcp-protocol-version"] as const;

/** How long a browser may cache a preflight answer (seconds); Chromium caps it at 7200. */
const PREFLIGHT_MAX_AGE_S = 7200;

export type CorsPolicy = { allowedOrigins: readonly string[]; methods: readonly string[] };

type Handler = (request: Request) => Promise<Response> | Response;

function forbiddenOrigin(): Response {
  return Response.json({ error: "forbidden_origin", message: "Origin not allowed" }, { status: 403 });
}

/** OPTIONS: 204 with the allowance for a listed origin asking for an allowed method; 403 otherwise. */
export function preflight(request: Request, policy: CorsPolicy): Response {
  const origin = request.headers.get("origin");
  const method = request.headers.get("access-control-request-method");
  if (origin === null || !policy.allowedOrigins.includes(origin)) return forbiddenOrigin();
  if (method !== null && !policy.methods.includes(method.toUpperCase())) return forbiddenOrigin();
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": policy.methods.join(", "),
      "access-control-allow-headers": CORS_ALLOWED_HEADERS.join(", "),
      "access-control-max-age": String(PREFLIGHT_MAX_AGE_S),
      vary: "Origin",
    },
  });
}

/**
 * Wraps a handler: a request from a listed origin gets its answer with the CORS headers; a request
 * from an unlisted origin is refused before the handler runs; a request with no Origin (a non-browser
 * client) passes through untouched.
 */
export function withCors(handler: Handler, policy: CorsPolicy): (request: Request) => Promise<Response> {
  return async (request) => {
    const origin = request.headers.get("origin");
    if (origin !== null && !policy.allowedOrigins.includes(origin)) return forbiddenOrigin();
    const response = await handler(request);
    if (origin === null) return response;
    // A fresh Response: handlers may return ones whose headers are immutable (Response.redirect).
    const headers = new Headers(response.headers);
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-expose-headers", CORS_EXPOSED_HEADERS.join(", "));
    headers.append("vary", "Origin");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
