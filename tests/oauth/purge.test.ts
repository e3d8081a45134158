import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../../db/queries/tenants";
import { purgeExpiredOAuthState } from "../../lib/oauth";
import { freshDatabase } from "../helpers/db";
import { createMember, type OAuthTestServer, register, startOAuthTestServer } from "../helpers/oauth-server";

// The open registration endpoint must not grow oauth_clients forever: registrations nobody ever
// authorized go after a week; anything a person consented to, or is consenting to, stays.

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
