import { createHash, randomBytes } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertGrant } from "../../db/queries/oauth-grants";
import { setTenantDisabled } from "../../db/queries/tenants";
import { requireOperator } from "../../lib/auth";
import { AppError } from "../../lib/errors";
import { createOAuthConfig, handleRegistrationRequest, listGrants } from "../../lib/oauth";
import { revokeConnectionAction, revokeTenantConnectionAction } from "../../lib/ui/actions/connection-actions";
import { consentDecisionAction } from "../../lib/ui/actions/consent-actions";
import { presentConnections } from "../../lib/ui/presenters/connections";
import { presentConsent } from "../../lib/ui/presenters/consent";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant } from "./helpers";

// The consent page's loader and its Approve/Deny action, and the Connections page's revocations,
// called as the pages call them (a real store, a real registered client, no Next request).

const config = createOAuthConfig({ publicUrl: "http://console.test" });
const REDIRECT = "http://127.0.0.1:7777/callback";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string };
let tenantB: { id: string };
let tenantOff: { id: string };
let member: { id: string };
let loner: { id: string };
let admin: { id: string };
let clientId: string;

function authorizeQuery(overrides: Record<string, string> = {}): URLSearchParams {
  const verifier = randomBytes(32).toString("base64url");
  return new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "st-1",
    scope: "mcp tasks:read",
    resource: config.resource,
    ...overrides,
  });
}

const operatorOf = (id: string) => requireOperator(contextFor(sql, id));
const decide = (operatorId: string, input: Record<string, unknown>, headers?: Record<string, string>) =>
  consentDecisionAction(config)(contextFor(sql, operatorId, headers), input);

async function thrown(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof AppError) return error;
  throw new Error(`expected an AppError, got ${String(error)}`);
}

const codeScopes = async (): Promise<string[][]> =>
  (await sql<{ scopes: string[] }[]>`SELECT scopes FROM oauth_authorization_codes ORDER BY created_at`).map((row) => row.scopes);

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "consent-a");
  tenantB = await makeTenant(sql, "consent-b");
  tenantOff = await makeTenant(sql, "consent-off");
  await setTenantDisabled(sql, { tenantId: tenantOff.id, disabled: true });
  member = await makeOperator(sql, "operator", [tenantA.id, tenantOff.id]);
  loner = await makeOperator(sql, "operator");
  admin = await makeOperator(sql, "admin");
  const registered = await handleRegistrationRequest(
    sql,
    new Request("http://console.test/api/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Consent test client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
    }),
  );
  clientId = ((await registered.json()) as { client_id: string }).client_id;
});
afterAll(async () => {
  await db?.drop();
});

describe("the consent page's loader", () => {
  it("shows the client, its redirect host and the asked scopes, and only tenants the person may act in", async () => {
    const view = await presentConsent(sql, config, await operatorOf(member.id), authorizeQuery());
    expect(view.kind).toBe("consent");
    if (view.kind !== "consent") return;
    expect(view.client).toMatchObject({ name: "Consent test client", redirectHost: "127.0.0.1:7777", kind: "dcr" });
    expect(view.scopes.map((s) => [s.scope, s.required])).toEqual([
      ["mcp", true],
      ["tasks:read", false],
    ]);
    // A member: its enabled memberships only (the disabled one is left out, tenant B is not theirs).
    expect(view.tenants.map((t) => t.id)).toEqual([tenantA.id]);
    const adminView = await presentConsent(sql, config, await operatorOf(admin.id), authorizeQuery());
    expect(adminView.kind === "consent" && adminView.tenants.map((t) => t.id).sort()).toEqual([tenantA.id, tenantB.id].sort());
    const lonerView = await presentConsent(sql, config, await operatorOf(loner.id), authorizeQuery());
    expect(lonerView.kind === "consent" && lonerView.tenants).toEqual([]);
  });

  it("an untrusted client or redirect URI is an error page; a broken request from a registered one is an error page too, with a link back", async () => {
    const operator = await operatorOf(member.id);
    expect(await presentConsent(sql, config, operator, authorizeQuery({ client_id: "dcr_unknown" }))).toMatchObject({
      kind: "error",
      error: "invalid_client",
    });
    const tampered = await presentConsent(sql, config, operator, authorizeQuery({ redirect_uri: "https://evil.example/cb" }));
    expect(tampered).toMatchObject({ kind: "error", error: "invalid_request" });
    expect(tampered.kind === "error" && tampered.returnTo).toBeUndefined();
    // RFC 9700 §4.11.2: anyone may register a client (DCR), so its redirect URI is not trusted enough
    // for an automatic redirect; the page names the host and the person may follow the link.
    const plain = await presentConsent(sql, config, operator, authorizeQuery({ code_challenge_method: "plain" }));
    expect(plain.kind).toBe("error");
    const back = plain.kind === "error" ? plain.returnTo : undefined;
    expect(back?.host).toBe("127.0.0.1:7777");
    const url = new URL(back?.url ?? "http://x/");
    expect(url.origin + url.pathname).toBe(REDIRECT);
    expect(url.searchParams.get("error")).toBe("invalid_request");
    expect(url.searchParams.get("state")).toBe("st-1");
  });

  it("a self-registered client with an https redirect URI anyone chose is never redirected to on a broken request (review F1)", async () => {
    const registered = await handleRegistrationRequest(
      sql,
      new Request("http://console.test/api/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Claude Code", redirect_uris: ["https://evil.example/phish"] }),
      }),
    );
    const evilClient = ((await registered.json()) as { client_id: string }).client_id;
    const params = new URLSearchParams({
      client_id: evilClient,
      redirect_uri: "https://evil.example/phish",
      response_type: "token",
    });
    const view = await presentConsent(sql, config, await operatorOf(member.id), params);
    expect(view.kind).toBe("error");
    expect(view).toMatchObject({ error: "unsupported_response_type", returnTo: { host: "evil.example" } });
  });
});

describe("Approve and Deny", () => {
  it("approve issues a code for the chosen tenant with the scopes left ticked; a required scope stays, an extra one is ignored", async () => {
    const before = (await codeScopes()).length;
    const target = await decide(member.id, {
      request: authorizeQuery().toString(),
      decision: "approve",
      tenantId: tenantA.id,
      // tasks:read unticked; tasks:write was never asked for (a forged field must not widen the grant).
      scopes: ["tasks:write"],
    });
    const url = new URL(target);
    expect(url.origin + url.pathname).toBe(REDIRECT);
    expect(url.searchParams.get("code")).toMatch(/^rfc_/);
    expect(url.searchParams.get("state")).toBe("st-1");
    const scopes = await codeScopes();
    expect(scopes).toHaveLength(before + 1);
    expect(scopes.at(-1)).toEqual(["mcp"]);
    const [row] = await sql`SELECT tenant_id, operator_id, actor FROM oauth_authorization_codes ORDER BY created_at DESC LIMIT 1`;
    expect(row).toMatchObject({ tenant_id: tenantA.id, operator_id: member.id, actor: `operator:${member.id}` });
  });

  it("refuses a tenant the person is not a member of, or a disabled one, and issues nothing", async () => {
    const before = (await codeScopes()).length;
    for (const tenantId of [tenantB.id, tenantOff.id, "", "not-a-uuid"]) {
      const error = await thrown(decide(member.id, { request: authorizeQuery().toString(), decision: "approve", tenantId }));
      expect(error.code).toBe("bad_request");
    }
    expect(await codeScopes()).toHaveLength(before);
  });

  it("deny sends access_denied with the state back to the client", async () => {
    const url = new URL(await decide(member.id, { request: authorizeQuery().toString(), decision: "deny" }));
    expect(url.searchParams.get("error")).toBe("access_denied");
    expect(url.searchParams.get("state")).toBe("st-1");
    expect(url.searchParams.get("code")).toBeNull();
  });

  it("validates the posted request again: a tampered redirect URI is refused without a redirect", async () => {
    const tampered = authorizeQuery({ redirect_uri: "https://evil.example/cb" }).toString();
    const error = await thrown(decide(member.id, { request: tampered, decision: "approve", tenantId: tenantA.id }));
    expect(error.code).toBe("bad_request");
    expect(error.message).toContain("redirect_uri is not registered");
  });

  it("refuses a cross-site post and a request without a session", async () => {
    const input = { request: authorizeQuery().toString(), decision: "approve", tenantId: tenantA.id };
    expect(
      (await thrown(decide(member.id, input, { origin: "https://evil.example", "sec-fetch-site": "cross-site" }))).code,
    ).toBe("forbidden");
    expect((await thrown(consentDecisionAction(config)(contextFor(sql, null), input))).code).toBe("unauthenticated");
  });
});

describe("Connections", () => {
  const grant = (operatorId: string, tenantId: string) =>
    insertGrant(sql, {
      clientId,
      operatorId,
      tenantId,
      scopes: ["mcp"],
      resource: config.resource,
      actor: `operator:${operatorId}`,
    });

  it("a person revokes their own connection only; an admin revokes any in a tenant", async () => {
    const mine = await grant(member.id, tenantA.id);
    const adminsOwn = await grant(admin.id, tenantB.id);
    const view = await presentConnections(sql, await operatorOf(member.id));
    expect(view.mine.map((item) => item.id)).toEqual([mine.id]);
    expect(view.tenantView).toBeNull();

    // Someone else's grant is "not found", exactly as an unknown one; the tenant view is admin-only.
    expect((await thrown(revokeConnectionAction(contextFor(sql, member.id), { grantId: adminsOwn.id }))).code).toBe("not_found");
    expect(
      (await thrown(revokeTenantConnectionAction(contextFor(sql, member.id), { grantId: adminsOwn.id, tenantId: tenantB.id })))
        .code,
    ).toBe("forbidden");
    await revokeConnectionAction(contextFor(sql, member.id), { grantId: mine.id });
    expect(await listGrants(sql, { operatorId: member.id })).toEqual([]);

    const other = await grant(member.id, tenantA.id);
    const adminView = await presentConnections(sql, await operatorOf(admin.id), "consent-a");
    expect(adminView.tenantView?.grants.map((item) => item.id)).toEqual([other.id]);
    const all = await presentConnections(sql, await operatorOf(admin.id));
    expect(all.tenantView?.grants.map((item) => item.id).sort()).toEqual([other.id, adminsOwn.id].sort());
    // The grant must belong to the tenant named.
    expect(
      (await thrown(revokeTenantConnectionAction(contextFor(sql, admin.id), { grantId: other.id, tenantId: tenantB.id }))).code,
    ).toBe("not_found");
    await revokeTenantConnectionAction(contextFor(sql, admin.id), { grantId: other.id, tenantId: tenantA.id });
    expect(await listGrants(sql, { tenantId: tenantA.id })).toEqual([]);
  });
});
