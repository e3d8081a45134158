import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { expect, type Page, test } from "@playwright/test";
import { createApiKey } from "../lib/auth";
import { connectLegacyClient } from "../tests/helpers/legacy-client";
import { MemoryOAuthProvider } from "../tests/helpers/memory-oauth-provider";
import { createAdmin, screenshot, withStackDatabase } from "./fixtures";
import { type CallbackServer, type MetadataServer, startCallbackServer, startMetadataServer } from "./oauth/loopback-servers";
import { loopbackTlsFromEnv } from "./oauth/loopback-tls";
import { authorizeInBrowser, connect, listToolsAndRunTask, mcpUrl, rawStatus } from "./oauth/sdk-flow";
import { ConnectionsPage } from "./pages/connections-page";
import { ConsentPage } from "./pages/consent-page";

// Issue 14's acceptance, end to end: the official SDK v1 client's own OAuth implementation
// (discovery from the 401, registration, PKCE, token exchange, refresh) against the real app, with
// a person signing in and approving in Chromium. The tests share the authorizations made first.
test.describe.configure({ mode: "serial" });

const TENANT = "tenant-acme";
let admin: { email: string; password: string; id: string };
let page: Page;
let callbacks: CallbackServer;
let metadata: MetadataServer | undefined;
const dcr = { provider: undefined as unknown as MemoryOAuthProvider, client: undefined as unknown as Client };

const grantOf = (clientId: string) =>
  withStackDatabase(async (sql) => {
    const [row] = await sql<{ id: string; actor: string }[]>`
      SELECT id, actor FROM oauth_grants WHERE client_id = ${clientId} AND revoked_at IS NULL`;
    return row;
  });

test.beforeAll(async ({ browser }) => {
  const created = await createAdmin();
  const id = await withStackDatabase(async (sql) => (await sql`SELECT id FROM operators WHERE email = ${created.email}`)[0]?.id);
  admin = { ...created, id: id as string };
  callbacks = await startCallbackServer();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
test.afterAll(async () => {
  await dcr.client?.close();
  await page?.close();
  await callbacks?.close();
  await metadata?.close();
});

test("DCR: the SDK registers, the person signs in and approves, the client lists tools and runs a task", async () => {
  const provider = new MemoryOAuthProvider({ redirectUrl: callbacks.redirectUrl, clientName: "E2E DCR client" });
  await authorizeInBrowser(page, callbacks, provider, { signIn: admin, clientName: "E2E DCR client", tenant: TENANT });
  // Registered dynamically: the server chose the id (not a URL).
  expect(provider.clientId).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(provider.tokens()?.refresh_token).toEqual(expect.any(String));
  dcr.provider = provider;
  dcr.client = await connect(provider);
  await listToolsAndRunTask(dcr.client);
  expect((await grantOf(provider.clientId as string))?.actor).toBe(`operator:${admin.id}`);
});

test("an untrusted client gets an error page, never a redirect; a registered one's broken request too, with a link back", async () => {
  const evil = new URL("/oauth/authorize", process.env.BASE_URL);
  evil.search = new URLSearchParams({
    response_type: "code",
    client_id: "no-such-client",
    redirect_uri: "https://evil.example/callback",
    code_challenge: "A".repeat(43),
    code_challenge_method: "S256",
    state: "x",
  }).toString();
  await page.goto(evil.toString());
  await expect(page.getByRole("heading", { name: "This authorization request cannot be used" })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(new URL(process.env.BASE_URL as string).origin);
  await screenshot(page, "oauth-consent-refused");

  // A registered client and redirect URI with a broken request: an error page too (RFC 9700
  // §4.11.2: anyone may register a client, so no automatic redirect); the person may follow the
  // link that names the client's host, and the error then reaches the client.
  const plain = new URL(dcr.provider.authorizationUrls[0] as URL);
  plain.searchParams.set("code_challenge_method", "plain");
  await page.goto(plain.toString());
  await expect(page.getByRole("heading", { name: "This authorization request cannot be used" })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(new URL(process.env.BASE_URL as string).origin);
  const arrived = callbacks.nextCallback();
  await page.getByRole("link", { name: `return to ${new URL(callbacks.redirectUrl).host}` }).click();
  const query = await arrived;
  expect(query.get("error")).toBe("invalid_request");
  expect(query.get("code")).toBeNull();
});

test("CIMD: the client's metadata URL is its id, fetched by the server over https", async () => {
  const tls = loopbackTlsFromEnv();
  test.skip(!tls, "needs the stack started by e2e/global-setup.ts, which trusts the loopback certificate");
  metadata = await startMetadataServer(tls as NonNullable<typeof tls>, (url) => ({
    client_id: url,
    client_name: "E2E CIMD client",
    redirect_uris: [callbacks.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  }));
  const provider = new MemoryOAuthProvider({
    redirectUrl: callbacks.redirectUrl,
    clientName: "E2E CIMD client",
    clientMetadataUrl: metadata.url,
  });
  await authorizeInBrowser(page, callbacks, provider, { clientName: "E2E CIMD client", tenant: TENANT });
  expect(provider.clientId).toBe(metadata.url);
  expect(metadata.fetches).toBeGreaterThanOrEqual(1);
  const client = await connect(provider);
  try {
    await listToolsAndRunTask(client);
  } finally {
    await client.close();
  }
});

test("an expired access token is refreshed by the SDK, and the old one is refused", async () => {
  const before = dcr.provider.tokens()?.access_token as string;
  const grant = await grantOf(dcr.provider.clientId as string);
  await withStackDatabase(
    (sql) =>
      sql`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE grant_id = ${grant?.id as string} AND kind = 'access'`,
  );
  expect(await rawStatus(before)).toBe(401);
  const { tools } = await dcr.client.listTools();
  expect(tools.map((tool) => tool.name)).toContain("durable_report");
  const after = dcr.provider.tokens()?.access_token as string;
  expect(after).not.toBe(before);
  expect(await rawStatus(after)).toBe(200);
});

test("a token for tenant-acme cannot see another tenant's task: it answers like an unknown ID", async () => {
  const key = await withStackDatabase(async (sql) => {
    const [tenant] = await sql<{ id: string }[]>`SELECT id FROM tenants WHERE slug = 'conformance'`;
    return createApiKey(sql, { tenantId: tenant?.id as string, name: "oauth-e2e-other-tenant" });
  });
  const other = await connectLegacyClient(mcpUrl(), key.token);
  let foreignId: string;
  try {
    const created = await other.client.request(
      { method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0 }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    foreignId = created.task.taskId;
    expect((await other.client.experimental.tasks.getTask(foreignId)).taskId).toBe(foreignId);
  } finally {
    await other.close();
  }
  const foreign = await dcr.client.experimental.tasks.getTask(foreignId).catch((error: unknown) => error);
  const unknown = await dcr.client.experimental.tasks
    .getTask("00000000-0000-4000-8000-000000000000")
    .catch((error: unknown) => error);
  expect(foreign).toBeInstanceOf(McpError);
  expect(unknown).toBeInstanceOf(McpError);
  expect({ code: (foreign as McpError).code, message: (foreign as McpError).message }).toEqual({
    code: (unknown as McpError).code,
    message: (unknown as McpError).message,
  });
  const listed = await dcr.client.experimental.tasks.listTasks();
  expect(listed.tasks.map((task) => task.taskId)).not.toContain(foreignId);
});

test("an answer given through the OAuth client is recorded as the person who approved it", async () => {
  let taskId = "";
  let result: Record<string, unknown> | undefined;
  for await (const message of dcr.client.experimental.tasks.callToolStream(
    { name: "approve_expense", arguments: { expense_id: "E-OAUTH", amount: 42 } },
    CallToolResultSchema,
    { task: {} },
  )) {
    if (message.type === "taskCreated") taskId = message.task.taskId;
    if (message.type === "error") throw message.error;
    if (message.type === "result") result = message.result;
  }
  expect(result?.structuredContent).toMatchObject({ expenseId: "E-OAUTH", decision: "approved" });
  const answeredBy = await withStackDatabase(
    async (sql) => (await sql`SELECT answered_by FROM run_inputs WHERE run_id = ${taskId} AND key = 'decision'`)[0]?.answered_by,
  );
  expect(answeredBy).toBe(`operator:${admin.id}`);
  await page.goto(`/tasks/${taskId}`);
  // The history names the person (createAdmin's name), with the recorded label as the line's title.
  const history = page.getByRole("list", { name: "Task history, newest first" });
  await expect(history).toContainText("answered by E2E admin");
  await expect(history.getByTitle(`operator:${admin.id}`)).toContainText("answered by E2E admin");
  await screenshot(page, "oauth-task-answered-by-person");
});

test("revoked in the Connections page, the client is refused on its next request; Deny sends access_denied", async () => {
  const grant = await grantOf(dcr.provider.clientId as string);
  const connections = new ConnectionsPage(page);
  await connections.goto();
  const row = connections.row("own", grant?.id as string);
  await expect(row).toContainText("E2E DCR client");
  await expect(row).toContainText(TENANT);
  await expect(row).toContainText("mcp tasks:read tasks:write");
  await screenshot(page, "oauth-connections");
  await connections.revoke("own", grant?.id as string);
  await expect(row).toHaveCount(0);

  const lastToken = dcr.provider.tokens()?.access_token as string;
  expect(await rawStatus(lastToken)).toBe(401);
  const urlsBefore = dcr.provider.authorizationUrls.length;
  const refused = await dcr.client.listTools().catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(UnauthorizedError);
  // The refresh token died with the grant, so the SDK starts a new authorization.
  expect(dcr.provider.authorizationUrls.length).toBe(urlsBefore + 1);

  const consent = new ConsentPage(page);
  await consent.open(dcr.provider.authorizationUrls.at(-1) as URL);
  const arrived = callbacks.nextCallback();
  await consent.deny();
  const query = await arrived;
  expect(query.get("error")).toBe("access_denied");
  expect(query.get("state")).toBe(dcr.provider.lastState);
  expect(query.get("code")).toBeNull();
});

test("an admin sees and revokes another tenant connection from the tenant view", async () => {
  test.skip(!metadata, "the CIMD test made the connection this one revokes");
  const grant = await grantOf(metadata?.url as string);
  const connections = new ConnectionsPage(page);
  await connections.goto(TENANT);
  const row = connections.row("tenant", grant?.id as string);
  await expect(row).toContainText(admin.email);
  await connections.revoke("tenant", grant?.id as string);
  await expect(row).toHaveCount(0);
  expect(await grantOf(metadata?.url as string)).toBeUndefined();
});
