import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEnv } from "../../lib/env";
import { authorizationServerMetadataResponse, createOAuthConfig, protectedResourceMetadataResponse } from "../../lib/oauth";
import { freshDatabase } from "../helpers/db";
import { type OAuthTestServer, startOAuthTestServer } from "../helpers/oauth-server";

// Discovery as the official SDK v1 client does it: the 401's resource_metadata → RFC 9728 PRM →
// RFC 8414 AS metadata, all derived from the public URL (never the request's Host).

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

describe("OAuth metadata documents", () => {
  it("serves Protected Resource Metadata naming the canonical resource and this issuer", async () => {
    const response = await fetch(`${server.origin}/.well-known/oauth-protected-resource/api/mcp`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: `${server.origin}/api/mcp`,
      authorization_servers: [server.origin],
      scopes_supported: ["mcp", "tasks:read", "tasks:write"],
      bearer_methods_supported: ["header"],
      resource_name: "Runifold",
    });
  });

  it("serves Authorization Server Metadata with S256 only, public clients and CIMD support", async () => {
    const body = await (await fetch(`${server.origin}/.well-known/oauth-authorization-server`)).json();
    expect(body).toMatchObject({
      issuer: server.origin,
      authorization_endpoint: `${server.origin}/oauth/authorize`,
      token_endpoint: `${server.origin}/api/oauth/token`,
      registration_endpoint: `${server.origin}/api/oauth/register`,
      revocation_endpoint: `${server.origin}/api/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      scopes_supported: ["mcp", "tasks:read", "tasks:write"],
      client_id_metadata_document_supported: true,
    });
  });

  it("is found by the SDK v1 client's discovery, starting from the MCP endpoint's 401", async () => {
    const unauthorized = await fetch(server.mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(unauthorized.status).toBe(401);
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(unauthorized);
    expect(resourceMetadataUrl?.href).toBe(`${server.origin}/.well-known/oauth-protected-resource/api/mcp`);
    expect(scope).toBe("mcp tasks:read tasks:write");
    const prm = await discoverOAuthProtectedResourceMetadata(server.mcpUrl, { resourceMetadataUrl });
    expect(prm.resource).toBe(server.config.resource);
    // Without the header hint too: the SDK probes the path-aware well-known URL first.
    expect((await discoverOAuthProtectedResourceMetadata(server.mcpUrl)).resource).toBe(server.config.resource);
    const as = await discoverAuthorizationServerMetadata(prm.authorization_servers?.[0] as string);
    expect(as?.issuer).toBe(server.origin);
    expect(as?.code_challenge_methods_supported).toEqual(["S256"]);
  });

  it("derives every URL from the configured public URL, with or without a trailing slash or a path", () => {
    const config = createOAuthConfig({ publicUrl: "https://runifold.example.com/" });
    expect(config).toMatchObject({
      issuer: "https://runifold.example.com",
      resource: "https://runifold.example.com/api/mcp",
      resourceMetadataUrl: "https://runifold.example.com/.well-known/oauth-protected-resource/api/mcp",
    });
    expect(config.metadataDocuments.allowLoopback).toBe(false);
    const nested = createOAuthConfig({ publicUrl: "https://example.com/runifold/" });
    expect(nested.issuer).toBe("https://example.com/runifold");
    expect(nested.resource).toBe("https://example.com/runifold/api/mcp");
    // Review F12: a loopback public URL (npm start's default) no longer lets the server fetch loopback
    // URLs named by any client_id; only RUNIFOLD_OAUTH_LOOPBACK_CIMD=true (tests) does.
    expect(createOAuthConfig({ publicUrl: "http://127.0.0.1:3000" }).metadataDocuments.allowLoopback).toBe(false);
    expect(readEnv({}).RUNIFOLD_OAUTH_LOOPBACK_CIMD).toBe("false");
    expect(
      createOAuthConfig({ publicUrl: "http://127.0.0.1:3000", metadataDocuments: { allowLoopback: true } }).metadataDocuments
        .allowLoopback,
    ).toBe(true);
  });

  it("answers 404 for both documents while OAuth is off", async () => {
    expect(protectedResourceMetadataResponse(undefined).status).toBe(404);
    expect(authorizationServerMetadataResponse(undefined).status).toBe(404);
  });
});
