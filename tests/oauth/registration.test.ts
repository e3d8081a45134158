import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../../db/queries/tenants";
import { purgeExpiredOAuthState } from "../../lib/oauth";
import { freshDatabase } from "../helpers/db";
import { createMember, type OAuthTestServer, register, startOAuthTestServer } from "../helpers/oauth-server";

// RFC 7591 Dynamic Client Registration for public clients: what is accepted, what is substituted,
// and the §3.2.2 errors for what is not; the rate per address; and the purge that keeps the open
// endpoint from growing oauth_clients forever (registrations nobody authorized go after a week).

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: OAuthTestServer;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  server = await startOAuthTestServer(sql);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("dynamic client registration", () => {
  it("registers a public client and answers 201 with a random client_id and the registered metadata", async () => {
    const { status, body } = await register(server.origin, {
      client_name: "Claude Code",
      redirect_uris: ["http://localhost:53123/callback", "https://claude.ai/api/mcp/auth_callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "mcp tasks:read tasks:write",
      unknown_field: "ignored",
    });
    expect(status).toBe(201);
    expect(body.client_id).toMatch(/^dcr_[A-Za-z0-9_-]{22}$/);
    expect(body).toMatchObject({
      client_name: "Claude Code",
      redirect_uris: ["http://localhost:53123/callback", "https://claude.ai/api/mcp/auth_callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "mcp tasks:read tasks:write",
    });
    expect(typeof body.client_id_issued_at).toBe("number");
    expect(body).not.toHaveProperty("client_secret");
    expect(body).not.toHaveProperty("unknown_field");
    const [row] = await sql`SELECT kind, client_name FROM oauth_clients WHERE id = ${body.client_id as string}`;
    expect(row).toEqual({ kind: "dcr", client_name: "Claude Code" });
    const [event] = await sql`SELECT action, actor, fields FROM audit_events WHERE action = 'oauth.client_registered'`;
    expect(event).toMatchObject({ actor: "anonymous", fields: { clientId: body.client_id, kind: "dcr" } });
  });

  it("substitutes token_endpoint_auth_method none (no secrets are ever issued) and defaults the grants", async () => {
    const { status, body } = await register(server.origin, {
      redirect_uris: ["https://app.example.com/cb"],
      token_endpoint_auth_method: "client_secret_basic",
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      client_name: "Unnamed client",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    });
    expect(body).not.toHaveProperty("client_secret");
  });

  it.each([
    ["no redirect_uris", {}, "invalid_redirect_uri"],
    ["an empty list", { redirect_uris: [] }, "invalid_redirect_uri"],
    ["http off loopback", { redirect_uris: ["http://app.example.com/cb"] }, "invalid_redirect_uri"],
    ["a fragment", { redirect_uris: ["https://app.example.com/cb#x"] }, "invalid_redirect_uri"],
    ["a relative URI", { redirect_uris: ["/cb"] }, "invalid_redirect_uri"],
    [
      "a private-use scheme (the MCP spec: localhost or https only)",
      { redirect_uris: ["cursor://anysphere/cb"] },
      "invalid_redirect_uri",
    ],
    ["javascript:", { redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
    ["data:", { redirect_uris: ["data:text/html,hi"] }, "invalid_redirect_uri"],
    ["userinfo", { redirect_uris: ["https://user:pw@app.example.com/cb"] }, "invalid_redirect_uri"],
    ["an implicit grant", { redirect_uris: ["https://a.example/cb"], grant_types: ["implicit"] }, "invalid_client_metadata"],
    [
      "client_credentials",
      { redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] },
      "invalid_client_metadata",
    ],
    ["a token response type", { redirect_uris: ["https://a.example/cb"], response_types: ["token"] }, "invalid_client_metadata"],
    ["an unknown scope", { redirect_uris: ["https://a.example/cb"], scope: "mcp admin" }, "invalid_client_metadata"],
    [
      "an http logo",
      { redirect_uris: ["https://a.example/cb"], logo_uri: "http://a.example/logo.png" },
      "invalid_client_metadata",
    ],
    ["a non-string name", { redirect_uris: ["https://a.example/cb"], client_name: 42 }, "invalid_client_metadata"],
  ])("refuses %s with %s", async (_name, metadata, error) => {
    const { status, body } = await register(server.origin, metadata);
    expect(status).toBe(400);
    expect(body.error).toBe(error);
    expect(typeof body.error_description).toBe("string");
  });

  it("refuses a body that is not JSON, and one over 16 KiB, without storing anything", async () => {
    const before = Number((await sql`SELECT count(*) AS n FROM oauth_clients`)[0]?.n);
    const notJson = await fetch(`${server.origin}/api/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error).toBe("invalid_client_metadata");
    const form = await fetch(`${server.origin}/api/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "redirect_uris=https://a.example/cb",
    });
    expect(form.status).toBe(400);
    const huge = await register(server.origin, {
      redirect_uris: ["https://a.example/cb"],
      client_name: "x",
      padding: "p".repeat(20_000),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe("invalid_client_metadata");
    expect(Number((await sql`SELECT count(*) AS n FROM oauth_clients`)[0]?.n)).toBe(before);
  });
});

describe("registration rate per client address", () => {
  it("answers 429 with Retry-After past the address's burst, and stores nothing for the refused ones", async () => {
    const limited = await startOAuthTestServer(sql, { registrationsPerMinute: 3 });
    try {
      const before = Number((await sql`SELECT count(*) AS n FROM oauth_clients`)[0]?.n);
      const metadata = { client_name: "Script", redirect_uris: ["https://a.example/cb"] };
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await register(limited.origin, metadata)).status);
      expect(statuses).toEqual([201, 201, 201]);
      const refused = await fetch(`${limited.origin}/api/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(metadata),
      });
      expect(refused.status).toBe(429);
      // 3 a minute: the next token is 20 s away.
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(19);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(20);
      expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable" });
      expect(Number((await sql`SELECT count(*) AS n FROM oauth_clients`)[0]?.n)).toBe(before + 3);
      // Each stored registration names the address it came from (review F9), so a flood has a source.
      const events =
        await sql`SELECT address FROM audit_events WHERE action = 'oauth.client_registered' ORDER BY id DESC LIMIT 3`;
      expect(events.map((e) => e.address)).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.1"]);
    } finally {
      await limited.close();
    }
  });
});

async function registered(name: string, ageDays: number): Promise<string> {
  const { status, body } = await register(server.origin, { client_name: name, redirect_uris: ["https://a.example/cb"] });
  expect(status).toBe(201);
  const id = body.client_id as string;
  await sql`UPDATE oauth_clients SET created_at = now() - make_interval(days => ${ageDays}) WHERE id = ${id}`;
  return id;
}

describe("purging abandoned registrations", () => {
  it("deletes week-old registrations that no grant or code names, and keeps every other client", async () => {
    const tenant = (await createTenant(sql, { slug: "purge", name: "Purge" })).id;
    const operator = await createMember(sql, "purge@example.com", [tenant]);
    const abandoned = await registered("abandoned", 8);
    const recent = await registered("recent", 2);
    const granted = await registered("granted", 30);
    const consenting = await registered("consenting", 30);
    await sql`
      INSERT INTO oauth_grants (client_id, operator_id, tenant_id, scopes, resource, actor)
      VALUES (${granted}, ${operator}, ${tenant}, ${["mcp"]}, 'http://x/api/mcp', 'test')`;
    await sql`
      INSERT INTO oauth_authorization_codes (code_sha256, client_id, operator_id, tenant_id, scopes, redirect_uri,
                                             code_challenge, resource, actor, expires_at)
      VALUES ('c0de', ${consenting}, ${operator}, ${tenant}, ${["mcp"]}, 'https://a.example/cb', 'x', 'http://x/api/mcp', 'test', now() + interval '1 minute')`;
    await sql`
      INSERT INTO oauth_clients (id, kind, client_name, redirect_uris, created_at)
      VALUES ('https://cimd.example/client.json', 'cimd', 'cimd', ${["https://cimd.example/cb"]}, now() - interval '30 days')`;

    const purged = await purgeExpiredOAuthState(sql);
    expect(purged.clients).toBe(1);
    const left = (await sql<{ id: string }[]>`SELECT id FROM oauth_clients`).map((row) => row.id);
    expect(left).not.toContain(abandoned);
    expect(left).toEqual(expect.arrayContaining([recent, granted, consenting, "https://cimd.example/client.json"]));
    expect((await purgeExpiredOAuthState(sql)).clients).toBe(0);
  });
});
