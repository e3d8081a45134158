import { generate } from "otplib";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reauthenticate, requireOperator } from "../../lib/auth";
import { createOAuthConfig } from "../../lib/oauth";
import { consentDecisionAction } from "../../lib/ui/actions/consent-actions";
import { createKeyAction } from "../../lib/ui/actions/key-actions";
import { disableMfaAction } from "../../lib/ui/actions/mfa-actions";
import { saveRouteAction } from "../../lib/ui/actions/route-actions";
import { createOperatorAction } from "../../lib/ui/actions/tenant-actions";
import { freshDatabase } from "../helpers/db";
import { makeOperator, makeTenant } from "../ui/helpers";
import { signedInContext } from "./helpers";
import { KEY, mfaHarness, PASSWORD, stepOf } from "./mfa-harness";

// Issue 33 (review 3, ASVS 3.7.1): minting keys, creating admins, binding routes, approving OAuth
// clients and turning MFA off need a recent authentication (10 minutes: the sign-in, its second
// factor, or the password or a code re-entered). Real Postgres; the actions as the console binds them.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
const { enrol, registerClient, auditActions } = mfaHarness(() => sql);

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db.drop();
});

describe("re-authentication before sensitive actions (ASVS 3.7.1)", () => {
  const ageSession = (sessionId: string) =>
    sql`UPDATE operator_sessions SET authenticated_at = now() - interval '11 minutes' WHERE id = ${sessionId}`;

  it("refuses minting a key in a session last authenticated over 10 minutes ago, until the password is entered again", async () => {
    const tenant = await makeTenant(sql, "tenant-reauth");
    const op = await makeOperator(sql, "operator", [tenant.id], PASSWORD);
    const ctx = await signedInContext(sql, op.id);
    // Fresh from sign-in: allowed.
    expect(await createKeyAction(ctx, { tenantId: tenant.id, name: "fresh" })).toMatchObject({ token: expect.any(String) });

    await ageSession(ctx.sessionId);
    const refused = await createKeyAction(ctx, { tenantId: tenant.id, name: "stale" }).catch((e: unknown) => e);
    expect(stepOf(refused)).toBe("recent_auth");
    expect((refused as Error).message).toMatch(/recent sign-in.*\/account\/confirm/);
    expect(await sql`SELECT 1 FROM api_keys WHERE name = 'stale'`).toHaveLength(0);
    // Other actions need no re-entry.
    expect((await requireOperator(ctx)).id).toBe(op.id);

    const wrong = await reauthenticate(sql, {
      operatorId: op.id,
      sessionId: ctx.sessionId,
      secret: "not the password",
      clientAddress: null,
      keyMaterial: KEY,
    });
    expect(wrong).toEqual({ ok: false, reason: "invalid" });
    expect(stepOf(await createKeyAction(ctx, { tenantId: tenant.id, name: "stale" }).catch((e: unknown) => e))).toBe(
      "recent_auth",
    );

    expect(
      await reauthenticate(sql, {
        operatorId: op.id,
        sessionId: ctx.sessionId,
        secret: PASSWORD,
        clientAddress: null,
        keyMaterial: KEY,
      }),
    ).toMatchObject({ ok: true });
    expect(await createKeyAction(ctx, { tenantId: tenant.id, name: "stale" })).toMatchObject({ token: expect.any(String) });
    expect(await auditActions(op.id)).toEqual(expect.arrayContaining(["auth.reauth.failure", "auth.reauth.success"]));
  });

  it("takes an authenticator code as the re-entry when MFA is on, and asks for it before creating an admin (not an operator)", async () => {
    const admin = await makeOperator(sql, "admin", [], PASSWORD);
    const { secret } = await enrol(admin.id, admin.email);
    const ctx = await signedInContext(sql, admin.id);
    await ageSession(ctx.sessionId);
    const newOperator = { email: `op-${Date.now()}@ops.test`, password: "another long password", role: "operator" };
    expect(await createOperatorAction(ctx, newOperator)).toMatchObject({ email: newOperator.email });
    const newAdmin = { email: `admin-${Date.now()}@ops.test`, password: "another long password", role: "admin" };
    expect(stepOf(await createOperatorAction(ctx, newAdmin).catch((e: unknown) => e))).toBe("recent_auth");

    expect(
      await reauthenticate(sql, {
        operatorId: admin.id,
        sessionId: ctx.sessionId,
        secret: await generate({ secret }),
        clientAddress: null,
        keyMaterial: KEY,
      }),
    ).toMatchObject({ ok: true });
    expect(await createOperatorAction(ctx, newAdmin)).toMatchObject({ email: newAdmin.email, role: "admin" });
  });

  it("asks for it before binding a route, approving an OAuth client (not denying) and turning MFA off", async () => {
    const tenant = await makeTenant(sql, "tenant-reauth-2");
    const op = await makeOperator(sql, "operator", [tenant.id], PASSWORD);
    const ctx = await signedInContext(sql, op.id);
    await ageSession(ctx.sessionId);

    const route = {
      tenantId: tenant.id,
      toolName: "stale_tool",
      workflowName: "generate-report",
      workflowVersion: 1,
      allowUnpublished: true,
    };
    expect(stepOf(await saveRouteAction(ctx, route).catch((e: unknown) => e))).toBe("recent_auth");
    expect(await sql`SELECT 1 FROM routes WHERE tool_name = 'stale_tool'`).toHaveLength(0);

    const config = createOAuthConfig({ publicUrl: "http://console.test" });
    const clientId = await registerClient("Re-auth client");
    const request = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:7777/cb",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      state: "s",
      scope: "mcp tasks:read",
      resource: config.resource,
    }).toString();
    const decide = (decision: string) =>
      consentDecisionAction(config)(ctx, { request, decision, tenantId: tenant.id, scopes: ["mcp", "tasks:read"] });
    expect(stepOf(await decide("approve").catch((e: unknown) => e))).toBe("recent_auth");
    expect(await sql`SELECT 1 FROM oauth_authorization_codes`).toHaveLength(0);
    // Saying no needs no re-entry.
    expect(await decide("deny")).toContain("error=access_denied");

    const { secret } = await enrol(op.id, op.email);
    const disable = disableMfaAction({ keyMaterial: KEY, clientAddress: null });
    expect(stepOf(await disable(ctx, {}).catch((e: unknown) => e))).toBe("recent_auth");

    // After the code is entered again, all three go through.
    expect(
      await reauthenticate(sql, {
        operatorId: op.id,
        sessionId: ctx.sessionId,
        secret: await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }),
        clientAddress: null,
        keyMaterial: KEY,
      }),
    ).toMatchObject({ ok: true });
    expect(await saveRouteAction(ctx, route)).toMatchObject({ revision: 1 });
    expect(await decide("approve")).toContain("code=");
    await disable(ctx, {});
    const [row] = await sql`SELECT mfa_enabled_at FROM operators WHERE id = ${op.id}`;
    expect(row?.mfa_enabled_at).toBeNull();
    expect(await auditActions(op.id)).toContain("auth.mfa.disabled");
  });
});
