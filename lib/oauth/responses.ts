/**
 * The authorization server's HTTP answers. Token-endpoint answers are never cached (RFC 6749 §5.1:
 * "Cache-Control: no-store"); errors are `{error, error_description}` JSON (RFC 6749 §5.2).
 */

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "unsupported_response_type"
  | "server_error"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "unsupported_token_type";

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...NO_STORE, ...headers } });
}

/**
 * An error answer. invalid_client is 401 (RFC 6749 §5.2); a public client authenticates with its
 * client_id only, so the challenge names no scheme a client could answer with credentials.
 */
export function oauthError(error: OAuthErrorCode, description: string, status?: number): Response {
  const code = status ?? (error === "invalid_client" ? 401 : 400);
  return oauthJson({ error, error_description: description }, code);
}

/** Public metadata documents: cacheable for a while (they change only with the configuration). */
export function metadataJson(body: unknown): Response {
  return Response.json(body, { headers: { "cache-control": "public, max-age=300" } });
}

export function notFound(): Response {
  return Response.json({ error: "not_found" }, { status: 404 });
}
