/**
 * JSON answers of the HTTP API: never cached (every answer is about one caller's tasks, right now),
 * and never gzipped by the server (`no-transform`; see lib/mcp/json-rpc.ts for why).
 */
export function jsonResponse(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store, no-transform", ...headers },
  });
}

/** An error answer: `{ error, message }` with a stable machine-readable `error` code. */
export function apiError(
  status: number,
  error: string,
  message: string,
  extra: { fields?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Response {
  return jsonResponse({ error, message, ...extra.fields }, status, extra.headers);
}

export function unavailable(): Response {
  return apiError(503, "unavailable", "Service temporarily unavailable");
}
