import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../../db/queries/tenants";
import { verifyAccessToken } from "../../lib/auth";
import { freshDatabase } from "../helpers/db";
import { connectClient, createMember, type OAuthTestServer, postForm, startOAuthTestServer } from "../helpers/oauth-server";

// RFC 7009 revocation: either token of a grant revokes the whole grant; the endpoint reveals nothing
// about unknown tokens and refuses another client's.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: OAuthTestServer;
let tenantId: string;
let operatorId: string;
let tokenUrl: string;

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

describe("revocation (RFC 7009)", () => {
  const revokeUrl = () => `${server.origin}/api/oauth/revoke`;

  it("revokes the grant of an access token: both its tokens stop working", async () => {
    const connected = await connectClient(sql, server, { operatorId, tenantId });
    const response = await postForm(revokeUrl(), {
      token: connected.accessToken,
      token_type_hint: "access_token",
      client_id: connected.clientId,
    });
    expect(response.status).toBe(200);
    expect(await works(connected.accessToken)).toBe(false);
    const refresh = await postForm(tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: connected.refreshToken,
      client_id: connected.clientId,
    });
    expect(refresh.body.error).toBe("invalid_grant");
    const [event] = await sql`SELECT fields FROM audit_events WHERE action = 'oauth.grant_revoked'`;
    expect(event?.fields).toMatchObject({ clientId: connected.clientId, via: "revocation_endpoint" });
  });

  it("revokes through a refresh token too", async () => {
    const connected = await connectClient(sql, server, { operatorId, tenantId });
    expect((await postForm(revokeUrl(), { token: connected.refreshToken })).status).toBe(200);
    expect(await works(connected.accessToken)).toBe(false);
  });

  it("answers 200 for an unknown or already revoked token, 400 without a token, 401 for another client's token", async () => {
    expect((await postForm(revokeUrl(), { token: "rfa_unknown" })).status).toBe(200);
    expect((await postForm(revokeUrl(), {})).body.error).toBe("invalid_request");
    const connected = await connectClient(sql, server, { operatorId, tenantId });
    const other = await postForm(revokeUrl(), { token: connected.accessToken, client_id: "dcr_someone_else" });
    expect(other.status).toBe(401);
    expect(other.body.error).toBe("invalid_client");
    expect(await works(connected.accessToken)).toBe(true);
    expect((await postForm(revokeUrl(), { token: connected.accessToken })).status).toBe(200);
    expect((await postForm(revokeUrl(), { token: connected.accessToken })).status).toBe(200);
  });
});
