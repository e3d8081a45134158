import { randomUUID } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createApiKey } from "../../lib/auth";
import { revokeGrant } from "../../lib/oauth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { modernClient } from "../helpers/modern-client";
import { connectClient, createMember, type OAuthTestServer, postForm, startOAuthTestServer } from "../helpers/oauth-server";
import { waitFor } from "../helpers/wait-for";

// /api/mcp as an OAuth resource server: the challenge that starts discovery, tokens beside API
// keys, audience binding, expiry and revocation on the next request, tenant isolation and task
// binding per grant, and the person recorded as the actor of what the token does.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: OAuthTestServer;
let apiKey: string;
let acmeId: string;
let conformanceId: string;
let operatorId: string;
let prm: string;

const SCOPE = 'scope="mcp tasks:read tasks:write"';
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "oauth-test", version: "1" } },
});
const post = (authorization?: string) =>
  fetch(server.mcpUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(authorization !== undefined ? { authorization } : {}),
    },
    body: initialize,
  });

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  apiKey = (await seedDemo(sql)).apiKey as string;
  acmeId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  conformanceId = (await findTenantBySlug(sql, "conformance"))?.id as string;
  operatorId = await createMember(sql, "ann@example.com", [acmeId]);
  server = await startOAuthTestServer(sql, { worker: true });
  prm = `resource_metadata="${server.origin}/.well-known/oauth-protected-resource/api/mcp"`;
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("the 401 challenge", () => {
  it("names the resource metadata and scopes, and no error when no credentials were sent (RFC 6750 §3.1)", async () => {
    const response = await post();
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(`Bearer realm="runifold", ${prm}, ${SCOPE}`);
  });

  it('adds error="invalid_token" when a credential was sent, whatever it was', async () => {
    for (const header of ["Bearer rfa_nope", "Bearer rf_0123456789abcdef_x", "Bearer something", "Basic dXNlcjpwdw=="]) {
      const response = await post(header);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe(`Bearer realm="runifold", error="invalid_token", ${prm}, ${SCOPE}`);
    }
  });
});

describe("access tokens at /api/mcp", () => {
  it("accepts a token with the Bearer scheme in any case, and API keys beside tokens", async () => {
    const { accessToken } = await connectClient(sql, server, { operatorId, tenantId: acmeId });
    for (const scheme of ["Bearer", "bearer", "BEARER"]) expect((await post(`${scheme} ${accessToken}`)).status).toBe(200);
    expect((await post(`Bearer ${apiKey}`)).status).toBe(200);
  });

  it("refuses an expired token on its next request", async () => {
    const { accessToken } = await connectClient(sql, server, { operatorId, tenantId: acmeId });
    expect((await post(`Bearer ${accessToken}`)).status).toBe(200);
    await sql`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access'`;
    const response = await post(`Bearer ${accessToken}`);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("expires a token after the configured lifetime", async () => {
    const shortLived = await startOAuthTestServer(sql, { accessTokenTtlS: 1 });
    try {
      const { accessToken } = await connectClient(sql, shortLived, { operatorId, tenantId: acmeId });
      const call = () =>
        fetch(shortLived.mcpUrl, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
          body: initialize,
        });
      expect((await call()).status).toBe(200);
      await waitFor(
        async () => (await call()).status,
        (status) => status === 401,
        {
          describe: "the 1 s access token to be refused",
          timeoutMs: 10_000,
          everyMs: 200,
        },
      );
    } finally {
      await shortLived.close();
    }
  });

  it("refuses a token issued for another resource (audience)", async () => {
    const elsewhere = await startOAuthTestServer(sql);
    try {
      const { accessToken } = await connectClient(sql, elsewhere, { operatorId, tenantId: acmeId });
      expect(elsewhere.config.resource).not.toBe(server.config.resource);
      expect((await post(`Bearer ${accessToken}`)).status).toBe(401);
    } finally {
      await elsewhere.close();
    }
  });

  it("refuses a refresh token used as an access token", async () => {
    const { refreshToken } = await connectClient(sql, server, { operatorId, tenantId: acmeId });
    expect((await post(`Bearer ${refreshToken}`)).status).toBe(401);
  });

  it("stops a token whose grant was revoked in the console, or whose person was disabled, on the next request", async () => {
    const first = await connectClient(sql, server, { operatorId, tenantId: acmeId });
    const [grant] =
      await sql`SELECT g.id FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id WHERE c.id = ${first.clientId}`;
    expect(await revokeGrant(sql, { grantId: grant?.id as string, operatorId: randomUUID() })).toBe(false);
    expect((await post(`Bearer ${first.accessToken}`)).status).toBe(200);
    expect(await revokeGrant(sql, { grantId: grant?.id as string, operatorId })).toBe(true);
    expect((await post(`Bearer ${first.accessToken}`)).status).toBe(401);
    const bob = await createMember(sql, "bob@example.com", [acmeId]);
    const second = await connectClient(sql, server, { operatorId: bob, tenantId: acmeId });
    expect((await post(`Bearer ${second.accessToken}`)).status).toBe(200);
    await sql`UPDATE operators SET disabled_at = now() WHERE id = ${bob}`;
    expect((await post(`Bearer ${second.accessToken}`)).status).toBe(401);
  });

  it("names the resource metadata in an insufficient_scope 403 too", async () => {
    const { accessToken } = await connectClient(sql, server, { operatorId, tenantId: acmeId, scopes: ["mcp"] });
    const client = modernClient(server.mcpUrl, { token: accessToken });
    const response = await client.request("tools/call", { name: "durable_report", arguments: { report_id: "r", settle_ms: 10 } });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBe(`Bearer error="insufficient_scope", scope="tasks:write", ${prm}`);
    expect(Number((await sql`SELECT count(*) AS n FROM runs`)[0]?.n)).toBe(0);
  });
});

describe("tasks reached with a token", () => {
  it("binds tasks to the grant: a refreshed token sees them, another grant of the same person does not", async () => {
    const connected = await connectClient(sql, server, { operatorId, tenantId: acmeId });
    const created = await modernClient(server.mcpUrl, { token: connected.accessToken }).result("tools/call", {
      name: "durable_report",
      arguments: { report_id: "q1", settle_ms: 10 },
    });
    const [run] = await sql`SELECT created_by_key_id FROM runs WHERE id = ${created.taskId}`;
    expect(run?.created_by_key_id).toMatch(/^oauth:[0-9a-f-]{36}$/);
    const refreshed = await postForm(`${server.origin}/api/oauth/token`, {
      grant_type: "refresh_token",
      refresh_token: connected.refreshToken,
      client_id: connected.clientId,
    });
    const again = modernClient(server.mcpUrl, { token: refreshed.body.access_token as string });
    expect((await again.waitFor(created.taskId, ["completed"])).status).toBe("completed");
    const otherGrant = await connectClient(sql, server, { operatorId, tenantId: acmeId });
    const foreign = await modernClient(server.mcpUrl, { token: otherGrant.accessToken }).request("tasks/get", {
      taskId: created.taskId,
    });
    const unknown = await modernClient(server.mcpUrl, { token: otherGrant.accessToken }).request("tasks/get", {
      taskId: randomUUID(),
    });
    expect(foreign.body.error).toBeDefined();
    expect({ ...foreign.body.error, data: undefined, message: undefined }).toEqual({
      ...unknown.body.error,
      data: undefined,
      message: undefined,
    });
  });

  it("never lets tenant A's token read tenant B's task: it answers exactly like an unknown id", async () => {
    const conformanceKey = await createApiKey(sql, { tenantId: conformanceId, name: "b" });
    const bTask = await modernClient(server.mcpUrl, { token: conformanceKey.token }).result("tools/call", {
      name: "slow_compute",
      arguments: { seconds: 0 },
    });
    expect(bTask.taskId).toMatch(/^[0-9a-f-]{36}$/);
    const { accessToken } = await connectClient(sql, server, { operatorId, tenantId: acmeId });
    const client = modernClient(server.mcpUrl, { token: accessToken });
    const tools = await client.result("tools/list", {});
    expect(tools.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(["approve_expense", "durable_report"]);
    const foreign = await client.request("tasks/get", { taskId: bTask.taskId });
    const unknown = await client.request("tasks/get", { taskId: randomUUID() });
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.body.error.code).toBe(unknown.body.error.code);
    expect(foreign.body.error.message).toBe(unknown.body.error.message);
    const cancel = await client.request("tasks/cancel", { taskId: bTask.taskId });
    expect(cancel.body.error.code).toBe(unknown.body.error.code);
  });

  it("records the person as the actor of an answer given with the token", async () => {
    const { accessToken } = await connectClient(sql, server, { operatorId, tenantId: acmeId });
    const client = modernClient(server.mcpUrl, { token: accessToken });
    const created = await client.result("tools/call", { name: "approve_expense", arguments: { expense_id: "E-9", amount: 12 } });
    await client.waitFor(created.taskId, ["input_required"]);
    await client.result("tasks/update", {
      taskId: created.taskId,
      inputResponses: { decision: { action: "accept", content: { decision: "approve", comment: "fine" } } },
    });
    const [input] = await sql`SELECT answered_by FROM run_inputs WHERE run_id = ${created.taskId}`;
    expect(input?.answered_by).toBe(`operator:${operatorId}`);
  });
});
