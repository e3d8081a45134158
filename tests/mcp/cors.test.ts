import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORS_ALLOWED_HEADERS } from "../../lib/server/cors";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";

// CORS on /api/mcp for browser clients (MCP Inspector in direct mode, web hosts): a listed origin's
// preflight succeeds and every real answer, 401 included, carries the headers a browser needs; an
// unlisted origin gets a 403 with no CORS headers, before authentication.

const LISTED = "https://inspector.example.com";
const UNLISTED = "https://evil.example.net";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  server = await startMcpTestServer(sql, {
    worker: false,
    allowedOrigins: [LISTED],
    cors: { allowedOrigins: [LISTED], methods: ["POST", "GET", "DELETE", "OPTIONS"] },
  });
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

const ping = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "cors-test", version: "1" } },
});

function preflight(origin: string, method = "POST") {
  return fetch(server.url, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
    },
  });
}

describe("CORS at /api/mcp", () => {
  it("answers a listed origin's preflight with the methods and every header an MCP client sends", async () => {
    const response = await preflight(LISTED);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = (response.headers.get("access-control-allow-headers") ?? "").split(/,\s*/);
    for (const header of ["authorization", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name", "last-event-id"]) {
      expect(allowed).toContain(header);
    }
    expect(allowed).toEqual([...CORS_ALLOWED_HEADERS]);
    expect(response.headers.get("vary")).toContain("Origin");
  });

  it("refuses an unlisted origin's preflight, and a method it does not serve, with 403 and no CORS headers", async () => {
    for (const response of [await preflight(UNLISTED), await preflight(LISTED, "PUT")]) {
      expect(response.status).toBe(403);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("puts the CORS headers on a listed origin's real answer and exposes WWW-Authenticate on a 401", async () => {
    const ok = await fetch(server.url, {
      method: "POST",
      headers: {
        origin: LISTED,
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: ping,
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(LISTED);

    const unauthenticated = await fetch(server.url, {
      method: "POST",
      headers: { origin: LISTED, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: ping,
    });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(unauthenticated.headers.get("access-control-expose-headers")).toContain("www-authenticate");
    expect(unauthenticated.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("refuses an unlisted origin's real request with 403 before authenticating, and answers clients that send no Origin as before", async () => {
    const refused = await fetch(server.url, {
      method: "POST",
      headers: { origin: UNLISTED, authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: ping,
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();

    const headless = await fetch(server.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: ping,
    });
    expect(headless.status).toBe(200);
    expect(headless.headers.get("access-control-allow-origin")).toBeNull();
  });
});
