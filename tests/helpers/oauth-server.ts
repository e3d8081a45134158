import { createHash, randomBytes } from "node:crypto";
import type { Worker } from "@runifold/sdk";
import type postgres from "postgres";
import { addOperatorTenant, createOperator } from "../../db/queries/operators";
import type { Scope } from "../../lib/auth";
import { createMcpHandler } from "../../lib/mcp";
import {
  authorizationServerMetadataResponse,
  createOAuthConfig,
  handleRegistrationRequest,
  handleRevocationRequest,
  handleTokenRequest,
  issueAuthorizationCode,
  type MetadataDocumentPolicy,
  type OAuthConfig,
  protectedResourceMetadataResponse,
  validateAuthorizationRequest,
} from "../../lib/oauth";
import { RateBuckets } from "../../lib/rate-buckets";
import { mcpHandlerDeps, startShippedWorker } from "./mcp-server";
import { serveRequests } from "./serve-requests";

/**
 * One loopback HTTP server shaped like the app for OAuth: the well-known documents, the register,
 * token and revoke endpoints, and /api/mcp with OAuth on — the same lib functions the Next route
 * handlers bind, with RUNIFOLD_PUBLIC_URL being this server's own URL. The consent page is not
 * served: `authorize()` does what it does (validate the request, then issue the code for a person).
 */
export type OAuthTestServer = {
  origin: string;
  config: OAuthConfig;
  mcpUrl: string;
  worker?: Worker;
  close(): Promise<void>;
};

export async function startOAuthTestServer(
  sql: postgres.Sql,
  options: {
    accessTokenTtlS?: number;
    refreshTokenTtlS?: number;
    metadataDocuments?: Partial<MetadataDocumentPolicy>;
    worker?: boolean;
    /** Registrations per client address per minute, counted as the web route counts them (off when absent). */
    registrationsPerMinute?: number;
  } = {},
): Promise<OAuthTestServer> {
  let config: OAuthConfig | undefined;
  let handleMcp: ((request: Request) => Promise<Response>) | undefined;
  const registrationRate = options.registrationsPerMinute ? new RateBuckets(options.registrationsPerMinute) : undefined;
  const route = async (request: Request, peer: string | null): Promise<Response> => {
    const active = config as OAuthConfig;
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/.well-known/oauth-protected-resource/api/mcp") {
      return protectedResourceMetadataResponse(active);
    }
    if (request.method === "GET" && path === "/.well-known/oauth-authorization-server") {
      return authorizationServerMetadataResponse(active);
    }
    if (request.method === "POST" && path === "/api/oauth/register")
      return handleRegistrationRequest(sql, request, registrationRate && { rate: registrationRate, clientAddress: peer });
    if (request.method === "POST" && path === "/api/oauth/token") return handleTokenRequest(sql, active, request);
    if (request.method === "POST" && path === "/api/oauth/revoke") return handleRevocationRequest(sql, request);
    if (request.method === "POST" && path === "/api/mcp") return (handleMcp as (r: Request) => Promise<Response>)(request);
    return Response.json({ error: "not_found" }, { status: 404 });
  };
  const server = await serveRequests(route);
  const origin = server.origin;
  config = createOAuthConfig({
    publicUrl: origin,
    accessTokenTtlS: options.accessTokenTtlS,
    refreshTokenTtlS: options.refreshTokenTtlS,
    metadataDocuments: options.metadataDocuments,
  });
  handleMcp = createMcpHandler(mcpHandlerDeps(sql, { oauth: config }));
  const worker = options.worker ? await startShippedWorker(sql) : undefined;
  return {
    origin,
    config,
    mcpUrl: `${origin}/api/mcp`,
    worker,
    async close() {
      await server.close();
      await worker?.stop(500);
    },
  };
}

/** A PKCE S256 pair (RFC 7636 §4.1–4.2). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** An operator who belongs to the given tenants (password login is not exercised here). */
export async function createMember(sql: postgres.Sql, email: string, tenantIds: string[]): Promise<string> {
  const operator = await createOperator(sql, { email, passwordHash: "scrypt$unused", role: "operator" });
  for (const tenantId of tenantIds) await addOperatorTenant(sql, { operatorId: operator.id, tenantId });
  return operator.id;
}

/** POST /api/oauth/register with JSON metadata. */
export async function register(origin: string, metadata: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}/api/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** POST to a form-encoded endpoint (token, revoke). */
export async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/**
 * What the consent page does when the person approves: validate the authorization request, then
 * issue the code for them in the tenant. Returns the code and the redirect the browser would follow.
 */
export async function authorize(
  sql: postgres.Sql,
  config: OAuthConfig,
  params: {
    clientId: string;
    redirectUri: string;
    operatorId: string;
    tenantId: string;
    challenge: string;
    scopes?: Scope[];
    state?: string;
  },
): Promise<{ code: string; redirect: URL }> {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: params.clientId,
    redirect_uri: params.redirectUri,
    code_challenge: params.challenge,
    code_challenge_method: "S256",
    resource: config.resource,
    state: params.state ?? "st-1",
  });
  const redirect = await consentTo(sql, config, query, params);
  return { code: redirect.searchParams.get("code") as string, redirect };
}

/**
 * The consent step alone, for an authorization request a client built (the SDK's authProvider, a
 * browser's URL): validate its parameters, then issue the code for the person in the tenant, with the
 * scopes asked for unless given. Returns the redirect the browser would follow (code and state).
 */
export async function consentTo(
  sql: postgres.Sql,
  config: OAuthConfig,
  query: URLSearchParams,
  person: { operatorId: string; tenantId: string; scopes?: Scope[] },
): Promise<URL> {
  const validated = await validateAuthorizationRequest(sql, config, query);
  if (!validated.ok) throw new Error(`authorization request refused: ${validated.error} ${validated.description}`);
  return new URL(
    await issueAuthorizationCode(sql, config, {
      request: validated,
      operatorId: person.operatorId,
      actorLabel: `operator:${person.operatorId}`,
      tenantId: person.tenantId,
      scopes: person.scopes ?? validated.scopes,
    }),
  );
}

/** Registration → consent → code exchange: a token pair for the person in the tenant. */
export async function connectClient(
  sql: postgres.Sql,
  server: OAuthTestServer,
  params: { operatorId: string; tenantId: string; scopes?: Scope[]; redirectUri?: string },
): Promise<{ clientId: string; redirectUri: string; accessToken: string; refreshToken: string }> {
  const redirectUri = params.redirectUri ?? "http://127.0.0.1:8765/callback";
  const registered = await register(server.origin, { client_name: "Test client", redirect_uris: [redirectUri] });
  const clientId = registered.body.client_id as string;
  const { verifier, challenge } = pkcePair();
  const { code } = await authorize(sql, server.config, { ...params, clientId, redirectUri, challenge });
  const token = await postForm(`${server.origin}/api/oauth/token`, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: verifier,
    resource: server.config.resource,
  });
  if (token.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(token.body)}`);
  return {
    clientId,
    redirectUri,
    accessToken: token.body.access_token as string,
    refreshToken: token.body.refresh_token as string,
  };
}
