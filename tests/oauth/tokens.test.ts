import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeOperatorTenant } from "../../db/queries/operators";
import { createTenant } from "../../db/queries/tenants";
import { verifyAccessToken } from "../../lib/auth";
import { webRegistry } from "../../lib/metrics";
import { freshDatabase } from "../helpers/db";
import {
  authorize,
  connectClient,
  createMember,
  type OAuthTestServer,
  pkcePair,
  postForm,
  register,
  startOAuthTestServer,
} from "../helpers/oauth-server";

// The token endpoint (code exchange with PKCE, rotating refresh tokens with reuse detection) and
// revocation, over real HTTP against a real store.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: OAuthTestServer;
let tenantId: string;
let operatorId: string;
let tokenUrl: string;
const REDIRECT = "http://127.0.0.1:8765/callback";

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  server = await startOAuthTestServer(sql);
  tokenUrl = `${server.origin}/api/oauth/token`;
  tenantId = (await createTenant(sql, { slug: "acme", name: "Acme" })).id;
  operatorId = await createMember(sql, "ann@example.com", [tenantId]);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

const works = async (accessToken: string) =>
  (await verifyAccessToken(sql, accessToken, { resource: server.config.resource })) !== undefined;

async function newCode(clientId: string, redirectUri = REDIRECT) {
  const { verifier, challenge } = pkcePair();
  const { code } = await authorize(sql, server.config, { clientId, redirectUri, operatorId, tenantId, challenge });
  return { code, verifier };
}

async function newClient(metadata: Record<string, unknown> = {}) {
  return (await register(server.origin, { client_name: "CLI", redirect_uris: [REDIRECT], ...metadata })).body.client_id as string;
}

const exchange = (clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) =>
  postForm(tokenUrl, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    ...extra,
  });

describe("authorization code exchange", () => {
  it("issues a bearer access token and a refresh token, no-store, storing only their digests", async () => {
    const clientId = await newClient();
    const { code, verifier } = await newCode(clientId);
    const response = await exchange(clientId, code, verifier, { resource: server.config.resource });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.body).toEqual({
      access_token: expect.stringMatching(/^rfa_[A-Za-z0-9_-]{43}$/),
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^rfr_[A-Za-z0-9_-]{43}$/),
      scope: "mcp tasks:read tasks:write",
    });
    const principal = await verifyAccessToken(sql, response.body.access_token as string, { resource: server.config.resource });
    expect(principal).toMatchObject({
      tenantId,
      tenantSlug: "acme",
      actor: `operator:${operatorId}`,
      scopes: ["mcp", "tasks:read", "tasks:write"],
    });
    expect(principal?.keyId).toMatch(/^oauth:[0-9a-f-]{36}$/);
    const dump =
      JSON.stringify(await sql`SELECT * FROM oauth_tokens`) + JSON.stringify(await sql`SELECT * FROM oauth_authorization_codes`);
    for (const secret of [code, response.body.access_token, response.body.refresh_token] as string[]) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice(4));
    }
  });

  it("refuses a wrong code_verifier, and the code is spent by that attempt", async () => {
    const clientId = await newClient();
    const { code, verifier } = await newCode(clientId);
    const wrong = await exchange(clientId, code, pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: "invalid_grant", error_description: "code_verifier does not match" });
    expect((await exchange(clientId, code, verifier)).body.error).toBe("invalid_grant");
  });

  it("refuses another redirect_uri, another client, an unknown client, a wrong resource and an expired code", async () => {
    const clientId = await newClient();
    const other = await newClient();
    let { code, verifier } = await newCode(clientId);
    expect((await exchange(clientId, code, verifier, { redirect_uri: "http://127.0.0.1:9999/callback" })).body.error).toBe(
      "invalid_grant",
    );
    ({ code, verifier } = await newCode(clientId));
    expect((await exchange(other, code, verifier)).body.error).toBe("invalid_grant");
    const unknown = await exchange("dcr_nobody", code, verifier);
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe("invalid_client");
    ({ code, verifier } = await newCode(clientId));
    expect((await exchange(clientId, code, verifier, { resource: "https://elsewhere.example/api/mcp" })).body.error).toBe(
      "invalid_target",
    );
    ({ code, verifier } = await newCode(clientId));
    await sql`UPDATE oauth_authorization_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`;
    expect((await exchange(clientId, code, verifier)).body).toEqual({
      error: "invalid_grant",
      error_description: "authorization code expired",
    });
  });

  it("answers a reused code with invalid_grant and revokes every token issued from it", async () => {
    const clientId = await newClient();
    const { code, verifier } = await newCode(clientId);
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    expect(await works(first.body.access_token as string)).toBe(true);
    const replay = await exchange(clientId, code, verifier);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    expect(await works(first.body.access_token as string)).toBe(false);
    const refresh = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh.body.error).toBe("invalid_grant");
    const [event] =
      await sql`SELECT fields FROM audit_events WHERE action = 'oauth.token_reuse_detected' AND fields->>'clientId' = ${clientId}`;
    expect(event?.fields).toMatchObject({ kind: "authorization_code", clientId, revoked: true });
  });

  it("lets only one of two concurrent exchanges of one code succeed", async () => {
    const clientId = await newClient();
    const { code, verifier } = await newCode(clientId);
    const results = await Promise.all([exchange(clientId, code, verifier), exchange(clientId, code, verifier)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    // The loser's replay revoked what the winner got.
    const winner = results.find((r) => r.status === 200);
    expect(await works(winner?.body.access_token as string)).toBe(false);
  });

  it("gives no refresh token to a client that did not register the refresh_token grant", async () => {
    const clientId = await newClient({ grant_types: ["authorization_code"] });
    const { code, verifier } = await newCode(clientId);
    const response = await exchange(clientId, code, verifier);
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty("refresh_token");
  });
});

describe("refresh tokens", () => {
  it("rotates: a new pair each time, the old access token keeps working until it expires", async () => {
    const connected = await connectClient(sql, server, { operatorId, tenantId });
    const refreshed = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: connected.refreshToken,
      client_id: connected.clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get("cache-control")).toBe("no-store");
    expect(refreshed.body.refresh_token).not.toBe(connected.refreshToken);
    expect(refreshed.body.access_token).not.toBe(connected.accessToken);
    const before = await verifyAccessToken(sql, connected.accessToken, { resource: server.config.resource });
    const after = await verifyAccessToken(sql, refreshed.body.access_token as string, { resource: server.config.resource });
    expect(after?.keyId).toBe(before?.keyId); // one grant: tasks stay reachable across refreshes
  });

  it("detects reuse of a rotated refresh token and revokes the whole family, newest access token included", async () => {
    const connected = await connectClient(sql, server, { operatorId, tenantId });
    const second = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: connected.refreshToken,
      client_id: connected.clientId,
    });
    const third = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: second.body.refresh_token as string,
      client_id: connected.clientId,
    });
    expect(third.status).toBe(200);
    expect(await works(third.body.access_token as string)).toBe(true);
    const reuse = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: connected.refreshToken,
      client_id: connected.clientId,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe("invalid_grant");
    expect(await works(third.body.access_token as string)).toBe(false);
    const latest = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: third.body.refresh_token as string,
      client_id: connected.clientId,
    });
    expect(latest.body.error).toBe("invalid_grant");
    const events =
      await sql`SELECT fields FROM audit_events WHERE action = 'oauth.token_reuse_detected' AND fields->>'kind' = 'refresh_token'`;
    expect(events).toHaveLength(1);
  });

  it("narrows the access token's scope on request and refuses widening", async () => {
    const connected = await connectClient(sql, server, { operatorId, tenantId, scopes: ["mcp", "tasks:read"] });
    const wider = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: connected.refreshToken,
      client_id: connected.clientId,
      scope: "mcp tasks:write",
    });
    expect(wider.body.error).toBe("invalid_scope");
    const narrower = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: connected.refreshToken,
      client_id: connected.clientId,
      scope: "mcp",
    });
    expect(narrower.body.scope).toBe("mcp");
    const principal = await verifyAccessToken(sql, narrower.body.access_token as string, { resource: server.config.resource });
    expect(principal?.scopes).toEqual(["mcp"]);
    // The new refresh token keeps the grant's scopes (RFC 6749 §6).
    const again = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: narrower.body.refresh_token as string,
      client_id: connected.clientId,
    });
    expect(again.body.scope).toBe("mcp tasks:read");
  });

  it("refuses another client's refresh token, an expired one, and one whose person left the tenant", async () => {
    const connected = await connectClient(sql, server, { operatorId, tenantId });
    const other = await newClient();
    expect(
      (await postForm(tokenUrl, { grant_type: "refresh_token", refresh_token: connected.refreshToken, client_id: other })).body
        .error,
    ).toBe("invalid_grant");
    const leaver = await createMember(sql, "leaver@example.com", [tenantId]);
    const theirs = await connectClient(sql, server, { operatorId: leaver, tenantId });
    await removeOperatorTenant(sql, { operatorId: leaver, tenantId });
    expect(await works(theirs.accessToken)).toBe(false);
    const refused = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: theirs.refreshToken,
      client_id: theirs.clientId,
    });
    expect(refused.body.error).toBe("invalid_grant");
    const expiring = await connectClient(sql, server, { operatorId, tenantId });
    await sql`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'refresh' AND used_at IS NULL`;
    expect(
      (
        await postForm(tokenUrl, {
          grant_type: "refresh_token",
          refresh_token: expiring.refreshToken,
          client_id: expiring.clientId,
        })
      ).body.error,
    ).toBe("invalid_grant");
  });
});

describe("token endpoint request errors", () => {
  it("answers RFC 6749 §5.2 errors for malformed requests", async () => {
    expect((await postForm(tokenUrl, {})).body.error).toBe("invalid_request");
    expect((await postForm(tokenUrl, { grant_type: "password", username: "a", password: "b" })).body.error).toBe(
      "unsupported_grant_type",
    );
    expect((await postForm(tokenUrl, { grant_type: "authorization_code", client_id: "x" })).body.error).toBe("invalid_request");
    const json = await fetch(tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"grant_type":"refresh_token"}',
    });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toBe("invalid_request");
    const repeated = await fetch(tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token&grant_type=authorization_code",
    });
    expect((await repeated.json()).error).toBe("invalid_request");
  });
});

describe("token endpoint metrics", () => {
  const count = async (labels: { grant_type: string; outcome: string }) => {
    const metric = await webRegistry().getSingleMetric("runifold_oauth_token_requests_total")?.get();
    const value = metric?.values.find((v) => v.labels.grant_type === labels.grant_type && v.labels.outcome === labels.outcome);
    return value?.value ?? 0;
  };

  it("counts issued tokens and refusals by grant type and RFC 6749 error code", async () => {
    const issuedBefore = await count({ grant_type: "authorization_code", outcome: "issued" });
    const refusedBefore = await count({ grant_type: "authorization_code", outcome: "invalid_grant" });
    const clientId = await newClient();
    const { code, verifier } = await newCode(clientId);
    expect((await exchange(clientId, code, verifier)).status).toBe(200);
    expect((await exchange(clientId, code, verifier)).status).toBe(400); // reused code
    expect(await count({ grant_type: "authorization_code", outcome: "issued" })).toBe(issuedBefore + 1);
    expect(await count({ grant_type: "authorization_code", outcome: "invalid_grant" })).toBe(refusedBefore + 1);
    const unsupportedBefore = await count({ grant_type: "other", outcome: "unsupported_grant_type" });
    expect((await postForm(tokenUrl, { grant_type: "password", client_id: clientId })).status).toBe(400);
    expect(await count({ grant_type: "other", outcome: "unsupported_grant_type" })).toBe(unsupportedBefore + 1);
  });
});
