import http from "node:http";
import type { AddressInfo } from "node:net";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOAuthConfig, type OAuthConfig, validateAuthorizationRequest } from "../../lib/oauth";
import { freshDatabase } from "../helpers/db";
import { pkcePair } from "../helpers/oauth-server";

// Client ID Metadata Documents: a client_id that is a URL is fetched by the server, so the fetch is
// an SSRF surface. A real loopback HTTP server serves good and hostile documents; the policy allows
// loopback only where the test says so, exactly as a loopback RUNIFOLD_PUBLIC_URL would.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let documents: http.Server;
let base: string;
const hits = new Map<string, number>();
let config: OAuthConfig;

const REDIRECT = "http://127.0.0.1:7777/callback";
const doc = (path: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ client_id: `${base}${path}`, client_name: "Doc client", redirect_uris: [REDIRECT], ...extra });

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  documents = http.createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = { "content-type": "application/json" };
    if (path === "/good.json") return res.writeHead(200, { ...json, "cache-control": "max-age=120" }).end(doc(path));
    if (path === "/nostore.json") return res.writeHead(200, { ...json, "cache-control": "no-store" }).end(doc(path));
    if (path === "/mismatch.json") return res.writeHead(200, json).end(doc("/other.json"));
    if (path === "/secret.json") return res.writeHead(200, json).end(doc(path, { client_secret: "s3cret" }));
    if (path === "/jwt.json") return res.writeHead(200, json).end(doc(path, { token_endpoint_auth_method: "private_key_jwt" }));
    if (path === "/html.json") return res.writeHead(200, { "content-type": "text/html" }).end(doc(path));
    if (path === "/redirect.json") return res.writeHead(302, { location: `${base}/good.json` }).end();
    if (path === "/missing.json") return res.writeHead(404).end();
    if (path === "/big.json") {
      // Chunked, no Content-Length: the limit must hold on the bytes that arrive.
      res.writeHead(200, json);
      const chunk = " ".repeat(16_384);
      let sent = 0;
      const push = () => {
        if (sent > 200_000 || res.destroyed) return res.end();
        sent += chunk.length;
        res.write(chunk, push);
      };
      return push();
    }
    if (path === "/slow.json") {
      res.writeHead(200, json);
      res.write("{");
      return; // never finishes: the fetch must give up at its timeout
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  config = createOAuthConfig({
    publicUrl: "https://runifold.example.com",
    metadataDocuments: { allowLoopback: true, timeoutMs: 500, maxBytes: 65_536 },
  });
});
afterAll(async () => {
  documents.closeAllConnections();
  await new Promise<void>((resolve) => documents.close(() => resolve()));
  await db.drop();
});

function authorizeQuery(clientId: string): URLSearchParams {
  return new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    state: "s",
  });
}

async function refusal(clientId: string, policy: OAuthConfig = config): Promise<string> {
  const result = await validateAuthorizationRequest(sql, policy, authorizeQuery(clientId));
  if (result.ok) throw new Error(`expected ${clientId} to be refused`);
  // An untrusted client never gets a redirect: the consent page shows an error instead.
  expect(result.redirect).toBeUndefined();
  expect(result.error).toBe("invalid_client");
  return result.description;
}

describe("Client ID Metadata Documents", () => {
  it("fetches a document, validates it and caches it for its max-age", async () => {
    const clientId = `${base}/good.json`;
    const result = await validateAuthorizationRequest(sql, config, authorizeQuery(clientId));
    expect(result).toMatchObject({
      ok: true,
      client: { id: clientId, name: "Doc client", kind: "cimd", redirectHost: "127.0.0.1:7777" },
    });
    const [row] =
      await sql`SELECT kind, round(extract(epoch FROM expires_at - fetched_at)) AS max_age FROM oauth_clients WHERE id = ${clientId}`;
    expect(row).toEqual({ kind: "cimd", max_age: "120" });
    await validateAuthorizationRequest(sql, config, authorizeQuery(clientId));
    expect(hits.get("/good.json")).toBe(1);
    // Once the cached copy is stale it is fetched again.
    await sql`UPDATE oauth_clients SET expires_at = now() - interval '1 second' WHERE id = ${clientId}`;
    expect((await validateAuthorizationRequest(sql, config, authorizeQuery(clientId))).ok).toBe(true);
    expect(hits.get("/good.json")).toBe(2);
  });

  it("caches a no-store document only for the minimum lifetime", async () => {
    const clientId = `${base}/nostore.json`;
    expect((await validateAuthorizationRequest(sql, config, authorizeQuery(clientId))).ok).toBe(true);
    const [row] =
      await sql`SELECT round(extract(epoch FROM expires_at - fetched_at)) AS max_age FROM oauth_clients WHERE id = ${clientId}`;
    expect(row?.max_age).toBe("60");
  });

  it("refuses private, link-local and unique-local addresses, and loopback unless allowed", async () => {
    expect(await refusal("https://10.0.0.1/client.json")).toMatch(/non-public address \(10\.0\.0\.1\)/);
    expect(await refusal("https://169.254.169.254/latest/meta-data")).toMatch(/non-public/);
    expect(await refusal("https://[fd00::1]/client.json")).toMatch(/non-public/);
    expect(await refusal("https://192.168.1.20/client.json")).toMatch(/non-public/);
    const strict = createOAuthConfig({ publicUrl: "https://runifold.example.com" });
    expect(strict.metadataDocuments.allowLoopback).toBe(false);
    expect(await refusal(`${base}/good.json`, strict)).toMatch(/loopback/);
    expect(await refusal("https://localhost/client.json", strict)).toMatch(/loopback/);
  });

  it("refuses a host name that resolves to a non-public address, even with loopback allowed", async () => {
    const rebinding = createOAuthConfig({
      publicUrl: "https://runifold.example.com",
      metadataDocuments: {
        allowLoopback: true,
        lookup: async () => [
          { address: "93.184.215.14", family: 4 },
          { address: "127.0.0.1", family: 4 },
        ],
      },
    });
    expect(await refusal("https://metadata.example.test/client.json", rebinding)).toMatch(/non-public address \(127\.0\.0\.1\)/);
  });

  it("refuses plain http off loopback, URLs without a path, with a fragment, userinfo or dot segments", async () => {
    expect(await refusal("http://client.example.com/client.json")).toMatch(/https/);
    expect(await refusal("https://client.example.com")).toMatch(/path/);
    expect(await refusal("https://client.example.com/")).toMatch(/path/);
    expect(await refusal("https://client.example.com/c.json#x")).toMatch(/fragment/);
    expect(await refusal("https://u:p@client.example.com/c.json")).toMatch(/user information/);
    expect(await refusal("https://client.example.com/a/../c.json")).toMatch(/canonical/);
  });

  it("refuses an oversized document, read as a stream and abandoned at the limit", async () => {
    expect(await refusal(`${base}/big.json`)).toMatch(/larger than 65536 bytes/);
  });

  it("refuses a document that does not arrive within the timeout", async () => {
    const started = Date.now();
    expect(await refusal(`${base}/slow.json`)).toMatch(/no answer within 500 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("does not follow redirects", async () => {
    expect(await refusal(`${base}/redirect.json`)).toMatch(/redirects are not followed \(HTTP 302\)/);
    expect(hits.get("/redirect.json")).toBe(1);
  });

  it("refuses a document whose client_id differs, one with a secret, one needing client authentication, non-JSON and 404", async () => {
    expect(await refusal(`${base}/mismatch.json`)).toMatch(/does not match its URL/);
    expect(await refusal(`${base}/secret.json`)).toMatch(/client_secret/);
    expect(await refusal(`${base}/jwt.json`)).toMatch(/token_endpoint_auth_method/);
    expect(await refusal(`${base}/html.json`)).toMatch(/not JSON/);
    expect(await refusal(`${base}/missing.json`)).toMatch(/HTTP 404/);
    const [{ n }] =
      (await sql`SELECT count(*)::int AS n FROM oauth_clients WHERE id LIKE ${`${base}/%`} AND id NOT IN (${`${base}/good.json`}, ${`${base}/nostore.json`})`) as unknown as [
        { n: number },
      ];
    expect(n).toBe(0);
  });

  it("validates the redirect URI against the document's list", async () => {
    const query = authorizeQuery(`${base}/good.json`);
    query.set("redirect_uri", "https://attacker.example/cb");
    const result = await validateAuthorizationRequest(sql, config, query);
    expect(result).toMatchObject({ ok: false, error: "invalid_request" });
    expect(result.ok === false && result.redirect).toBeFalsy();
  });
});
