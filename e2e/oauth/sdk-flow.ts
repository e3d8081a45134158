import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect, type Page } from "@playwright/test";
import type { MemoryOAuthProvider } from "../../tests/helpers/memory-oauth-provider";
import { screenshot } from "../fixtures";
import { ConsentPage } from "../pages/consent-page";
import type { CallbackServer } from "./loopback-servers";

// The MCP client's side of e2e/oauth.spec.ts: the SDK v1 client with its own OAuth (authProvider).

export const mcpUrl = () => new URL("/api/mcp", process.env.BASE_URL).toString();

/** A v1 client with elicitation (answering approve_expense's question with `approve`). */
function newClient(): Client {
  const client = new Client({ name: "runifold-oauth-e2e", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: "accept",
    content: { decision: "approve", comment: "approved over OAuth" },
  }));
  return client;
}

export async function connect(provider: MemoryOAuthProvider): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider }));
  return client;
}

/**
 * What a desktop client does on first contact: connect, get the 401, let the SDK discover and
 * register, and open the browser at the authorization URL; the person approves; the SDK exchanges
 * the code.
 */
export async function authorizeInBrowser(
  page: Page,
  callbacks: CallbackServer,
  provider: MemoryOAuthProvider,
  options: { signIn?: { email: string; password: string }; clientName: string; tenant: string },
): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider });
  const refused = await newClient()
    .connect(transport)
    .catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(UnauthorizedError);
  const authorizationUrl = provider.authorizationUrls.at(-1) as URL;
  expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(new URL("/oauth/authorize", process.env.BASE_URL).toString());
  expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorizationUrl.searchParams.get("resource")).toBe(mcpUrl());

  const consent = new ConsentPage(page);
  await consent.open(authorizationUrl, options.signIn);
  await expect(page.getByRole("heading", { name: `Connect ${options.clientName}?` })).toBeVisible();
  await expect(consent.redirectHost).toHaveText(new URL(callbacks.redirectUrl).host);
  for (const scope of ["tasks:read", "tasks:write"]) await expect(consent.scope(scope)).toBeChecked();
  await consent.pickTenant(options.tenant);
  await screenshot(page, `oauth-consent-${provider.clientMetadataUrl ? "cimd" : "dcr"}`);
  const arrived = callbacks.nextCallback();
  await consent.approve();
  await expect(page).toHaveURL(new RegExp(`^${callbacks.redirectUrl}\\?`));
  const query = await arrived;
  expect(query.get("state")).toBe(provider.lastState);
  expect(query.get("iss")).toBe(new URL(process.env.BASE_URL as string).origin);
  await transport.finishAuth(query.get("code") as string);
  await transport.close();
}

/** tools/list and durable_report as a task, through to its result. */
export async function listToolsAndRunTask(client: Client) {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["approve_expense", "durable_report"]));
  let result: Record<string, unknown> | undefined;
  for await (const message of client.experimental.tasks.callToolStream(
    { name: "durable_report", arguments: { report_id: "oauth", settle_ms: 200 } },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  )) {
    if (message.type === "error") throw message.error;
    if (message.type === "result") result = message.result;
  }
  expect(result?.structuredContent).toMatchObject({ reportId: "oauth" });
}

/** A raw MCP request with a bare token, outside the SDK (which would refresh on a 401). */
export const rawStatus = async (accessToken: string) =>
  (
    await fetch(mcpUrl(), {
      method: "POST",
      headers: {
        authorization: `Bearer ${accessToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    })
  ).status;
