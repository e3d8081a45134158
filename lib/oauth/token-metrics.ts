import { counter } from "../metrics";

/** Grant types the label may take; anything else a client sends is counted as `other`. */
const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);
/** RFC 6749 §5.2 error codes (plus `issued`): a fixed set, so the label stays bounded. */
const OUTCOMES = new Set([
  "issued",
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "invalid_target",
]);

const tokenRequests = () =>
  counter({
    name: "runifold_oauth_token_requests_total",
    help: "Token endpoint requests by grant type and outcome (issued, or the RFC 6749 error code: invalid_grant counts reused codes and refresh tokens).",
    labelNames: ["grant_type", "outcome"] as const,
  });

/** Counts one token endpoint answer: `issued` for a 200, else the error code its body names. */
export async function recordTokenResponse(grantType: string | null, response: Response): Promise<void> {
  let outcome = "issued";
  if (response.status !== 200) {
    const body = (await response
      .clone()
      .json()
      .catch(() => ({}))) as { error?: unknown };
    outcome = typeof body.error === "string" && OUTCOMES.has(body.error) ? body.error : "other";
  }
  tokenRequests().inc({ grant_type: grantType && GRANT_TYPES.has(grantType) ? grantType : "other", outcome });
}
