import type { SqlHandle } from "@runifold/store";
import { insertAuthorizationCode } from "../../db/queries/oauth-codes";
import { operatorMayActInTenant } from "../../db/queries/oauth-grants";
import { findTenantById } from "../../db/queries/tenants";
import { mintOpaqueToken, noticeCredentialChange, SCOPES, type Scope, tokenDigest } from "../auth";
import { AppError } from "../errors";
import { auditOAuth } from "./audit-oauth";
import type { OAuthConfig } from "./config";
import { firstParameterWithNul, firstRepeatedParameter } from "./read-body";
import { matchRegisteredRedirectUri, redirectHostOf, redirectUriProblem } from "./redirect-uris";
import { resolveClient } from "./resolve-client";
import { isCanonicalResource } from "./resource";
import type { OAuthErrorCode } from "./responses";
import { isSubsetOf, parseScopeString } from "./scopes";

/** The client as the consent page shows it. `redirectHost` must be shown (MCP 2025-11-25 "Localhost Redirect URI Risks"). */
export type AuthorizationClient = {
  id: string;
  name: string;
  /** The redirect URI of this request (exactly as requested and matched). */
  redirectUri: string;
  redirectHost: string;
  logoUri?: string;
  clientUri?: string;
  /** `cimd`: the id is the URL of the client's metadata document; `dcr`: registered here. */
  kind: "dcr" | "cimd";
};

export type ValidAuthorizationRequest = {
  ok: true;
  client: AuthorizationClient;
  /** What the client asked for (all supported scopes when it named none); the person may grant fewer. */
  scopes: Scope[];
  state?: string;
  codeChallenge: string;
  /** The canonical resource the code (and its tokens) are bound to. */
  resource: string;
  /** Who answers (RFC 9207 `iss` on the redirect). */
  issuer: string;
};

/**
 * A refused request. Without `redirect`, the client or its redirect URI cannot be trusted: show an
 * error page and send nothing back (RFC 6749 §4.1.2.1). With it, the redirect URI is one the client
 * registered and `redirect` is the error response for it; it is offered to the person as a link,
 * never followed automatically, since anyone may register a client with any https redirect URI
 * here (RFC 9700 §4.11.2, review F1).
 */
export type InvalidAuthorizationRequest = { ok: false; error: OAuthErrorCode; description: string; redirect?: string };

export type AuthorizationRequestResult = ValidAuthorizationRequest | InvalidAuthorizationRequest;

/** RFC 7636 §4.2: 43–128 characters of the unreserved set (S256 challenges are 43). */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_STATE_LENGTH = 1_024;

/**
 * Validates GET /oauth/authorize's query (OAuth 2.1 §4.1.1 with PKCE S256 only, RFC 8707
 * resource, RFC 8252 loopback redirects). The consent page calls it when rendering AND again when
 * the person answers (from the same query, never from anything the form posts), then passes the
 * ok result to issueAuthorizationCode or denyAuthorization.
 */
export async function validateAuthorizationRequest(
  sql: SqlHandle,
  config: OAuthConfig,
  params: URLSearchParams,
): Promise<AuthorizationRequestResult> {
  const repeated = firstRepeatedParameter(params);
  if (repeated === "client_id" || repeated === "redirect_uri")
    return page("invalid_request", `parameter ${repeated} is repeated`);
  const nul = firstParameterWithNul(params);
  if (nul !== undefined) return page("invalid_request", `parameter ${nul.slice(0, 100)} contains U+0000`);
  const clientId = params.get("client_id");
  if (!clientId) return page("invalid_request", "client_id is required");
  const resolved = await resolveClient(sql, config, clientId);
  if (!resolved.ok) return page("invalid_client", resolved.description);
  const client = resolved.client;
  // Required, although OAuth 2.1 lets a client with one registered URI omit it: the token request
  // must then repeat it identically, and MCP clients always send it.
  const requestedRedirect = params.get("redirect_uri");
  if (!requestedRedirect) return page("invalid_request", "redirect_uri is required");
  if (!matchRegisteredRedirectUri(client.redirect_uris, requestedRedirect)) {
    return page("invalid_request", "redirect_uri is not registered for this client");
  }
  // A registration from before the https-or-loopback rule (a private-use scheme) is not used either.
  const unusable = redirectUriProblem(requestedRedirect);
  if (unusable) return page("invalid_request", unusable);

  // From here the redirect URI is the client's own: errors may go back to it (RFC 6749 §4.1.2.1),
  // by the person's click on the error page (lib/ui/presenters/consent.ts).
  const state = params.get("state") ?? undefined;
  const fail = (error: OAuthErrorCode, description: string): InvalidAuthorizationRequest => ({
    ok: false,
    error,
    description,
    redirect: withResponseParameters(requestedRedirect, config, {
      error,
      error_description: description,
      ...(state !== undefined && state.length <= MAX_STATE_LENGTH ? { state } : {}),
    }),
  });
  if (repeated) return fail("invalid_request", `parameter ${repeated} is repeated`);
  if (state !== undefined && state.length > MAX_STATE_LENGTH) return fail("invalid_request", "state is too long");
  const responseType = params.get("response_type");
  if (!responseType) return fail("invalid_request", "response_type is required");
  if (responseType !== "code") return fail("unsupported_response_type", 'response_type must be "code"');
  const codeChallenge = params.get("code_challenge");
  if (!codeChallenge) return fail("invalid_request", "code_challenge is required (PKCE with S256)");
  if (params.get("code_challenge_method") !== "S256") return fail("invalid_request", "code_challenge_method must be S256");
  if (!PKCE_VALUE.test(codeChallenge)) return fail("invalid_request", "code_challenge is malformed");
  const resource = params.get("resource");
  // RFC 8707 §2: an omitted resource still yields a token for this server's one resource.
  if (resource !== null && !isCanonicalResource(resource, config)) {
    return fail("invalid_target", "resource must be this server's MCP endpoint");
  }
  const scope = params.get("scope");
  const registered = client.scope ? (parseScopeString(client.scope) ?? []) : [...SCOPES];
  const asked = scope === null ? [] : parseScopeString(scope);
  if (!asked) return fail("invalid_scope", "scope names a scope this server does not support");
  if (!isSubsetOf(asked, registered)) return fail("invalid_scope", "scope exceeds what the client registered");
  const scopes = asked.length > 0 ? asked : registered;
  if (scopes.length === 0) return fail("invalid_scope", "no scope to grant");

  return {
    ok: true,
    client: {
      id: client.id,
      name: client.client_name,
      redirectUri: requestedRedirect,
      redirectHost: redirectHostOf(requestedRedirect),
      ...(client.logo_uri ? { logoUri: client.logo_uri } : {}),
      ...(client.client_uri ? { clientUri: client.client_uri } : {}),
      kind: client.kind,
    },
    scopes,
    ...(state !== undefined ? { state } : {}),
    codeChallenge,
    resource: config.resource,
    issuer: config.issuer,
  };
}

/**
 * The person approved: stores a single-use code (SHA-256 only, `authorizationCodeTtlS`, 60 s by
 * default) and returns the URL to redirect the browser to. Re-checks that the operator may act in
 * the tenant (defence in depth beside the consent page's own check): otherwise AppError not_found.
 * `scopes` are what the person granted: non-empty and within what the request asked for.
 */
export async function issueAuthorizationCode(
  sql: SqlHandle,
  config: OAuthConfig,
  params: { request: ValidAuthorizationRequest; operatorId: string; actorLabel: string; tenantId: string; scopes: Scope[] },
): Promise<string> {
  const { request } = params;
  if (params.scopes.length === 0 || !isSubsetOf(params.scopes, request.scopes)) {
    throw new AppError("bad_request", "Grant at least one of the requested scopes, and only those.");
  }
  if (!(await operatorMayActInTenant(sql, { operatorId: params.operatorId, tenantId: params.tenantId }))) {
    throw new AppError("not_found");
  }
  const code = mintOpaqueToken("rfc_");
  await insertAuthorizationCode(sql, {
    codeSha256: tokenDigest(code),
    clientId: request.client.id,
    operatorId: params.operatorId,
    tenantId: params.tenantId,
    scopes: [...new Set(params.scopes)],
    redirectUri: request.client.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    actor: params.actorLabel,
    ttlS: config.authorizationCodeTtlS,
  });
  await auditOAuth(
    sql,
    "oauth.authorized",
    { clientId: request.client.id, clientName: request.client.name, tenantId: params.tenantId, scopes: params.scopes.join(" ") },
    params.operatorId,
  );
  // A client acting in the person's name is a new credential of theirs (ASVS 2.2.3); never the code.
  const tenant = await findTenantById(sql, params.tenantId);
  await noticeCredentialChange(sql, {
    operatorId: params.operatorId,
    change: "oauth_client_authorized",
    by: "self",
    details: [
      `Application: ${request.client.name} (redirects to ${request.client.redirectHost})`,
      `Tenant: ${tenant?.slug ?? params.tenantId}`,
      `Scopes: ${params.scopes.join(", ")}`,
    ],
  });
  return withResponseParameters(request.client.redirectUri, config, {
    code,
    ...(request.state !== undefined ? { state: request.state } : {}),
  });
}

/**
 * The person declined: the URL that tells the client so (`access_denied`, RFC 6749 §4.1.2.1).
 * With `audit`, the refusal is also recorded (in the background; the audit trail never fails a request).
 */
export function denyAuthorization(request: ValidAuthorizationRequest, audit?: { sql: SqlHandle; operatorId: string }): string {
  if (audit) {
    void auditOAuth(
      audit.sql,
      "oauth.denied",
      { clientId: request.client.id, clientName: request.client.name },
      audit.operatorId,
    );
  }
  return withResponseParameters(request.client.redirectUri, request, {
    error: "access_denied",
    error_description: "The person declined the authorization request",
    ...(request.state !== undefined ? { state: request.state } : {}),
  });
}

function page(error: OAuthErrorCode, description: string): InvalidAuthorizationRequest {
  return { ok: false, error, description };
}

/**
 * The redirect URI with the response parameters added to its query (keeping its own, RFC 6749
 * §3.1.2) and `iss` (RFC 9207: lets a client that talks to several servers tell who answered).
 */
function withResponseParameters(
  redirectUri: string,
  config: Pick<OAuthConfig, "issuer">,
  values: Record<string, string>,
): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(values)) url.searchParams.set(key, value);
  url.searchParams.set("iss", config.issuer);
  return url.toString();
}
