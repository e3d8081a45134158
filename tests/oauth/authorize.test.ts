import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../../db/queries/tenants";
import {
  denyAuthorization,
  issueAuthorizationCode,
  type ValidAuthorizationRequest,
  validateAuthorizationRequest,
} from "../../lib/oauth";
import { freshDatabase } from "../helpers/db";
import { createMember, type OAuthTestServer, pkcePair, register, startOAuthTestServer } from "../helpers/oauth-server";
import { waitFor } from "../helpers/wait-for";

// The authorization request (GET /oauth/authorize) as the consent page validates it: which errors
// are shown on the page (client or redirect URI not trusted) and which go back to the client.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: OAuthTestServer;
let clientId: string;
let tenantId: string;
let otherTenantId: string;
let operatorId: string;
const REDIRECT = "http://127.0.0.1:8765/callback";
const WEB_REDIRECT = "https://client.example.com/oauth/cb?app=1";

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  server = await startOAuthTestServer(sql);
  const registered = await register(server.origin, { client_name: "Editor", redirect_uris: [REDIRECT, WEB_REDIRECT] });
  clientId = registered.body.client_id as string;
  tenantId = (await createTenant(sql, { slug: "acme", name: "Acme" })).id;
  otherTenantId = (await createTenant(sql, { slug: "globex", name: "Globex" })).id;
  operatorId = await createMember(sql, "ann@example.com", [tenantId]);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

function query(overrides: Record<string, string | null> = {}): URLSearchParams {
  const params: Record<string, string | null> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    resource: server.config.resource,
    state: "xyz",
    ...overrides,
  };
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== null) search.set(key, value);
  return search;
}

async function validOf(params: URLSearchParams): Promise<ValidAuthorizationRequest> {
  const result = await validateAuthorizationRequest(sql, server.config, params);
  if (!result.ok) throw new Error(`${result.error}: ${result.description}`);
  return result;
}

async function redirectedError(params: URLSearchParams): Promise<URLSearchParams> {
  const result = await validateAuthorizationRequest(sql, server.config, params);
  if (result.ok || !result.redirect) throw new Error(`expected a redirected error, got ${JSON.stringify(result)}`);
  const url = new URL(result.redirect);
  expect(`${url.origin}${url.pathname}`).toBe(
    new URL(params.get("redirect_uri") as string).origin + new URL(params.get("redirect_uri") as string).pathname,
  );
  expect(url.searchParams.get("error")).toBe(result.error);
  expect(url.searchParams.get("iss")).toBe(server.origin);
  return url.searchParams;
}

describe("validateAuthorizationRequest", () => {
  it("accepts a complete request and describes the client for the consent page", async () => {
    const result = await validOf(query());
    expect(result).toMatchObject({
      client: { id: clientId, name: "Editor", redirectUri: REDIRECT, redirectHost: "127.0.0.1:8765", kind: "dcr" },
      scopes: ["mcp", "tasks:read", "tasks:write"],
      state: "xyz",
      resource: server.config.resource,
      issuer: server.origin,
    });
  });

  it("binds to the canonical resource when none is named, and accepts an uppercase scheme and host", async () => {
    expect((await validOf(query({ resource: null }))).resource).toBe(server.config.resource);
    const shouting = server.config.resource.replace("http://127.0.0.1", "HTTP://127.0.0.1");
    expect((await validOf(query({ resource: shouting }))).resource).toBe(server.config.resource);
  });

  it("accepts a loopback redirect URI on another port (RFC 8252 §7.3) but not another path or host", async () => {
    expect((await validOf(query({ redirect_uri: "http://127.0.0.1:51234/callback" }))).client.redirectUri).toBe(
      "http://127.0.0.1:51234/callback",
    );
    for (const redirect of [
      "http://127.0.0.1:8765/other",
      "http://localhost:8765/callback",
      "http://127.0.0.1:8765/callback?x=1",
    ]) {
      const result = await validateAuthorizationRequest(sql, server.config, query({ redirect_uri: redirect }));
      expect(result).toEqual({
        ok: false,
        error: "invalid_request",
        description: "redirect_uri is not registered for this client",
      });
    }
  });

  it("matches a non-loopback redirect URI exactly, query included", async () => {
    expect((await validOf(query({ redirect_uri: WEB_REDIRECT }))).client.redirectHost).toBe("client.example.com");
    const result = await validateAuthorizationRequest(
      sql,
      server.config,
      query({ redirect_uri: "https://client.example.com/oauth/cb" }),
    );
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.redirect).toBeUndefined();
  });

  it("shows an error page, never a redirect, for an unknown or missing client_id or a missing redirect_uri", async () => {
    const cases: Record<string, string | null>[] = [{ client_id: "dcr_unknown" }, { client_id: null }, { redirect_uri: null }];
    for (const overrides of cases) {
      const result = await validateAuthorizationRequest(sql, server.config, query(overrides));
      expect(result.ok).toBe(false);
      expect(result.ok === false && result.redirect).toBeUndefined();
    }
  });

  it("refuses a request without PKCE, or with plain PKCE, back to the client with its state", async () => {
    let error = await redirectedError(query({ code_challenge: null }));
    expect(error.get("error")).toBe("invalid_request");
    expect(error.get("state")).toBe("xyz");
    error = await redirectedError(query({ code_challenge_method: "plain" }));
    expect(error.get("error")).toBe("invalid_request");
    expect(error.get("error_description")).toMatch(/S256/);
    expect((await redirectedError(query({ code_challenge_method: null }))).get("error")).toBe("invalid_request");
    expect((await redirectedError(query({ code_challenge: "short" }))).get("error")).toBe("invalid_request");
  });

  it("refuses another resource with invalid_target", async () => {
    for (const resource of [
      "https://elsewhere.example.com/api/mcp",
      `${server.config.resource}/`,
      `${server.origin}/api/other`,
    ]) {
      expect((await redirectedError(query({ resource }))).get("error")).toBe("invalid_target");
    }
  });

  it("refuses unknown scopes and response types, and repeated parameters", async () => {
    expect((await redirectedError(query({ scope: "mcp admin" }))).get("error")).toBe("invalid_scope");
    expect((await redirectedError(query({ response_type: "token" }))).get("error")).toBe("unsupported_response_type");
    const repeated = query();
    repeated.append("scope", "mcp");
    repeated.append("scope", "tasks:read");
    expect((await redirectedError(repeated)).get("error")).toBe("invalid_request");
  });

  it("narrows to the requested scopes, ignores offline_access, and keeps a client within what it registered", async () => {
    expect((await validOf(query({ scope: "tasks:read mcp offline_access" }))).scopes).toEqual(["tasks:read", "mcp"]);
    const narrow = await register(server.origin, { redirect_uris: [REDIRECT], scope: "mcp tasks:read" });
    const params = query({ client_id: narrow.body.client_id as string, scope: null });
    expect((await validOf(params)).scopes).toEqual(["mcp", "tasks:read"]);
    params.set("scope", "mcp tasks:write");
    expect((await redirectedError(params)).get("error")).toBe("invalid_scope");
  });
});

describe("issueAuthorizationCode and denyAuthorization", () => {
  it("redirects with a code and the state, stores only the code's digest, and audits the person", async () => {
    const request = await validOf(query());
    const redirect = new URL(
      await issueAuthorizationCode(sql, server.config, {
        request,
        operatorId,
        actorLabel: `operator:${operatorId}`,
        tenantId,
        scopes: ["mcp", "tasks:read"],
      }),
    );
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT);
    expect(redirect.searchParams.get("state")).toBe("xyz");
    expect(redirect.searchParams.get("iss")).toBe(server.origin);
    const code = redirect.searchParams.get("code") as string;
    expect(code).toMatch(/^rfc_[A-Za-z0-9_-]{43}$/);
    const rows =
      await sql`SELECT code_sha256, scopes, tenant_id, round(extract(epoch FROM expires_at - created_at)) AS ttl FROM oauth_authorization_codes`;
    expect(rows).toHaveLength(1);
    expect(rows[0]?.code_sha256).not.toContain(code);
    expect(rows[0]).toMatchObject({ scopes: ["mcp", "tasks:read"], tenant_id: tenantId, ttl: "60" });
    const [event] = await sql`SELECT actor, operator_id, tenant_id FROM audit_events WHERE action = 'oauth.authorized'`;
    expect(event).toEqual({ actor: `operator:${operatorId}`, operator_id: operatorId, tenant_id: tenantId });
  });

  it("keeps the redirect URI's own query parameters", async () => {
    const request = await validOf(query({ redirect_uri: WEB_REDIRECT }));
    const redirect = new URL(
      await issueAuthorizationCode(sql, server.config, {
        request,
        operatorId,
        actorLabel: `operator:${operatorId}`,
        tenantId,
        scopes: ["mcp"],
      }),
    );
    expect(redirect.searchParams.get("app")).toBe("1");
    expect(redirect.searchParams.get("code")).toBeTruthy();
  });

  it("refuses a tenant the person does not belong to, and scopes beyond the request", async () => {
    const request = await validOf(query({ scope: "mcp" }));
    const base = { request, operatorId, actorLabel: `operator:${operatorId}` };
    await expect(
      issueAuthorizationCode(sql, server.config, { ...base, tenantId: otherTenantId, scopes: ["mcp"] }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      issueAuthorizationCode(sql, server.config, { ...base, tenantId, scopes: ["mcp", "tasks:write"] }),
    ).rejects.toMatchObject({
      code: "bad_request",
    });
    await expect(issueAuthorizationCode(sql, server.config, { ...base, tenantId, scopes: [] })).rejects.toMatchObject({
      code: "bad_request",
    });
  });

  it("denies with access_denied and the state, and records the refusal", async () => {
    const request = await validOf(query());
    const redirect = new URL(denyAuthorization(request, { sql, operatorId }));
    expect(redirect.searchParams.get("error")).toBe("access_denied");
    expect(redirect.searchParams.get("state")).toBe("xyz");
    expect(redirect.searchParams.get("iss")).toBe(server.origin);
    expect(redirect.searchParams.has("code")).toBe(false);
    await waitFor(
      async () => (await sql`SELECT actor FROM audit_events WHERE action = 'oauth.denied'`).length,
      (count) => count === 1,
      { describe: "the oauth.denied audit event" },
    );
  });
});
