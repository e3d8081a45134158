import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTenantBySlug } from "../../db/queries/tenants";
import { verifyAccessToken } from "../../lib/auth";
import { issueAuthorizationCode, validateAuthorizationRequest } from "../../lib/oauth";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { createMember, type OAuthTestServer, startOAuthTestServer } from "../helpers/oauth-server";
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

class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test client",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return "sdk-state";
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** What the consent page does when the person approves the request the SDK opened. */
async function approve(authorizationUrl: URL): Promise<string> {
  expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${server.origin}/oauth/authorize`);
  const request = await validateAuthorizationRequest(sql, server.config, authorizationUrl.searchParams);
  if (!request.ok) throw new Error(`${request.error}: ${request.description}`);
  const redirect = new URL(
    await issueAuthorizationCode(sql, server.config, {
      request,
      operatorId,
      actorLabel: `operator:${operatorId}`,
      tenantId,
      scopes: request.scopes,
    }),
  );
  expect(redirect.searchParams.get("state")).toBe("sdk-state");
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
    const provider = new MemoryProvider();
    const first = new Client({ name: "sdk-oauth", version: "1" });
    await expect(
      first.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider })),
    ).rejects.toThrow(/Unauthorized/);
    expect(provider.client?.client_id).toMatch(/^dcr_/);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(server.config.resource);
    expect(authorizationUrl.searchParams.get("scope")).toBe("mcp tasks:read tasks:write");

    const code = await approve(authorizationUrl);
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider });
    await transport.finishAuth(code);
    expect(provider.saved?.token_type).toBe("Bearer");
    const client = new Client({ name: "sdk-oauth", version: "1" });
    await client.connect(transport);
    const tools = await client.listTools();
    // The tenant's two tools, then the companion tools of task handles (the client negotiated no tasks).
    expect(tools.tools.map((tool) => tool.name).filter((name) => !name.startsWith("runifold_task_"))).toEqual([
      "approve_expense",
      "durable_report",
    ]);

    const expiring = provider.saved?.access_token as string;
    await waitFor(
      () => verifyAccessToken(sql, expiring, { resource: server.config.resource }),
      (principal) => principal === undefined,
      { describe: "the 2 s access token to expire", timeoutMs: 15_000, everyMs: 200 },
    );
    // The transport answers the 401 by refreshing (rotation) and retries: the caller sees nothing.
    expect((await client.listTools()).tools).toHaveLength(tools.tools.length);
    expect(provider.saved?.access_token).not.toBe(expiring);
    await client.close();
  });
});
