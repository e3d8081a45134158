import { randomUUID } from "node:crypto";
import { silentLogger } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../../db/queries/tenants";
import { verifyAccessToken } from "../../lib/auth";
import { bearerVerifier, createSignalHandler } from "../../lib/http-api";
import { listGrants, revokeGrant } from "../../lib/oauth";
import { freshDatabase } from "../helpers/db";
import { connectClient, createMember, type OAuthTestServer, startOAuthTestServer } from "../helpers/oauth-server";
import { waitFor } from "../helpers/wait-for";

// Grants are what people see as "connected clients": one per authorization, listed per person or
// per tenant, revoked by their owner only. And the HTTP API takes the same tokens as /api/mcp.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: OAuthTestServer;
let acme: string;
let globex: string;
let ann: string;
let bob: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  server = await startOAuthTestServer(sql);
  acme = (await createTenant(sql, { slug: "acme", name: "Acme" })).id;
  globex = (await createTenant(sql, { slug: "globex", name: "Globex" })).id;
  ann = await createMember(sql, "ann@example.com", [acme, globex]);
  bob = await createMember(sql, "bob@example.com", [acme]);
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

const works = async (token: string) => (await verifyAccessToken(sql, token, { resource: server.config.resource })) !== undefined;

describe("listGrants and revokeGrant", () => {
  it("lists a person's grants across tenants and a tenant's grants across people, newest first", async () => {
    const annAcme = await connectClient(sql, server, { operatorId: ann, tenantId: acme, scopes: ["mcp", "tasks:read"] });
    const annGlobex = await connectClient(sql, server, { operatorId: ann, tenantId: globex });
    const bobAcme = await connectClient(sql, server, { operatorId: bob, tenantId: acme });
    const mine = await listGrants(sql, { operatorId: ann });
    expect(mine.map((grant) => grant.clientId)).toEqual([annGlobex.clientId, annAcme.clientId]);
    expect(mine[1]).toMatchObject({
      clientName: "Test client",
      clientKind: "dcr",
      tenantId: acme,
      tenantSlug: "acme",
      tenantName: "Acme",
      operatorId: ann,
      operatorEmail: "ann@example.com",
      scopes: ["mcp", "tasks:read"],
      createdAt: expect.any(Date),
    });
    const acmeGrants = await listGrants(sql, { tenantId: acme });
    expect(acmeGrants.map((grant) => grant.clientId)).toEqual([bobAcme.clientId, annAcme.clientId]);
    expect(await listGrants(sql, { operatorId: "not-a-uuid" })).toEqual([]);
  });

  it("revokes only the owner's grant (person or tenant), hides it from the lists and audits who did it", async () => {
    const connected = await connectClient(sql, server, { operatorId: bob, tenantId: acme });
    const grant = (await listGrants(sql, { operatorId: bob })).find((g) => g.clientId === connected.clientId);
    const grantId = grant?.id as string;
    expect(await revokeGrant(sql, { grantId, operatorId: ann })).toBe(false);
    expect(await revokeGrant(sql, { grantId, tenantId: globex })).toBe(false);
    expect(await revokeGrant(sql, { grantId })).toBe(false);
    expect(await works(connected.accessToken)).toBe(true);
    expect(await revokeGrant(sql, { grantId, tenantId: acme, actorOperatorId: ann })).toBe(true);
    expect(await works(connected.accessToken)).toBe(false);
    expect(await revokeGrant(sql, { grantId, tenantId: acme })).toBe(false);
    expect((await listGrants(sql, { operatorId: bob })).map((g) => g.id)).not.toContain(grantId);
    const [event] = await sql`SELECT actor, tenant_id, fields FROM audit_events WHERE action = 'oauth.grant_revoked'`;
    expect(event).toMatchObject({ actor: `operator:${ann}`, tenant_id: acme, fields: { grantId, via: "console" } });
  });

  it("records when a grant was last used", async () => {
    const connected = await connectClient(sql, server, { operatorId: ann, tenantId: acme });
    expect(await works(connected.accessToken)).toBe(true);
    await waitFor(
      async () => (await listGrants(sql, { operatorId: ann })).find((g) => g.clientId === connected.clientId)?.lastUsedAt,
      (lastUsedAt) => lastUsedAt instanceof Date,
      { describe: "the grant's last use" },
    );
  });
});

describe("the HTTP API with an OAuth token", () => {
  it("accepts a token where OAuth is on and refuses it where it is off", async () => {
    const { accessToken } = await connectClient(sql, server, { operatorId: ann, tenantId: acme });
    const signal = (verifyBearer: ReturnType<typeof bearerVerifier>) =>
      createSignalHandler({ sql: () => sql, logger: silentLogger, verifyBearer })(
        new Request(`${server.origin}/api/v1/tasks/x/signals/go`, {
          method: "POST",
          headers: { authorization: `bearer ${accessToken}`, "content-type": "application/json" },
          body: "{}",
        }),
        { id: randomUUID(), name: "go" },
      );
    // Authenticated: the (unknown) task is then "not found".
    expect((await signal(bearerVerifier({ resource: server.config.resource }))).status).toBe(404);
    expect((await signal(bearerVerifier())).status).toBe(401);
    expect((await signal(bearerVerifier({ resource: "https://elsewhere.example/api/mcp" }))).status).toBe(401);
  });
});
