import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { verifyAccessToken } from "../../lib/auth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { MemoryOAuthProvider } from "../helpers/memory-oauth-provider";
import { consentTo, createMember, type OAuthTestServer, startOAuthTestServer } from "../helpers/oauth-server";
import { waitFor } from "../helpers/wait-for";

// The official SDK v1 client's own OAuth implementation (authProvider on its Streamable HTTP
// transport) against this server: discovery from the 401, Dynamic Client Registration, PKCE,
// code exchange, then MCP with the token, and a transparent refresh once the access token expires.
// The browser step is the consent page's job; here the "person" approves by calling what the
// page calls (e2e/ does it in a real Chromium).

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: OAuthTestServer;
let tenantId: string;
let operatorId: string;
const REDIRECT = "http://127.0.0.1:33418/callback";

/** What the consent page does when the person approves the request the SDK opened. */
async function approve(provider: MemoryOAuthProvider): Promise<string> {
  const authorizationUrl = provider.authorizationUrls.at(-1) as URL;
  expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${server.origin}/oauth/authorize`);
  const redirect = await consentTo(sql, server.config, authorizationUrl.searchParams, { operatorId, tenantId });
  expect(redirect.searchParams.get("state")).toBe(provider.lastState);
  return redirect.searchParams.get("code") as string;
}

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await seedDemo(sql);
  tenantId = (await findTenantBySlug(sql, "tenant-acme"))?.id as string;
  operatorId = await createMember(sql, "ann@example.com", [tenantId]);
  server = await startOAuthTestServer(sql, { accessTokenTtlS: 2, worker: false });
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

describe("the SDK v1 client's OAuth flow", () => {
  it("discovers, registers, authorizes with PKCE, exchanges the code, calls tools, and refreshes after expiry", async () => {
    const provider = new MemoryOAuthProvider({ redirectUrl: REDIRECT, clientName: "SDK test client" });
    const first = new Client({ name: "sdk-oauth", version: "1" });
    await expect(
      first.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider })),
    ).rejects.toThrow(/Unauthorized/);
    expect(provider.clientId).toMatch(/^dcr_/);
    const authorizationUrl = provider.authorizationUrls.at(-1) as URL;
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(server.config.resource);
    expect(authorizationUrl.searchParams.get("scope")).toBe("mcp tasks:read tasks:write");

    const code = await approve(provider);
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider });
    await transport.finishAuth(code);
    expect(provider.tokens()?.token_type).toBe("Bearer");
    const client = new Client({ name: "sdk-oauth", version: "1" });
    await client.connect(transport);
    const tools = await client.listTools();
    // The tenant's two tools, then the companion tools of task handles (the client negotiated no tasks).
    expect(tools.tools.map((tool) => tool.name).filter((name) => !name.startsWith("runifold_task_"))).toEqual([
      "approve_expense",
      "durable_report",
    ]);

    const expiring = provider.tokens()?.access_token as string;
    await waitFor(
      () => verifyAccessToken(sql, expiring, { resource: server.config.resource }),
      (principal) => principal === undefined,
      { describe: "the 2 s access token to expire", timeoutMs: 15_000, everyMs: 200 },
    );
    // The transport answers the 401 by refreshing (rotation) and retries: the caller sees nothing.
    expect((await client.listTools()).tools).toHaveLength(tools.tools.length);
    expect(provider.tokens()?.access_token).not.toBe(expiring);
    await client.close();
  });
});
