import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant } from "../../db/queries/tenants";
import { requireOperator, verifyApiKey } from "../../lib/auth";
import { changePasswordAction, resetPasswordAction, signOutEverywhereAction } from "../../lib/ui/actions/account-actions";
import { createKeyAction } from "../../lib/ui/actions/key-actions";
import { removeMemberAction, setOperatorDisabledAction } from "../../lib/ui/actions/tenant-actions";
import { presentConnections } from "../../lib/ui/presenters/connections";
import { freshDatabase } from "../helpers/db";
import { modernClient } from "../helpers/modern-client";
import { connectClient, type OAuthTestServer, postForm, startOAuthTestServer } from "../helpers/oauth-server";
import { makeOperator } from "../ui/helpers";
import { signedInContext } from "./helpers";

// Review F7: containing a compromised operator. A reset, "sign out everywhere", a disable or the
// removal of a membership must end every way that person acts: console sessions, the OAuth grants
// they approved (delegated sessions, ASVS 3.3.3), and the API keys they minted where they lose access.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: OAuthTestServer;
let tenantId: string;
let admin: { id: string };

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  server = await startOAuthTestServer(sql, { worker: false });
  tenantId = (await createTenant(sql, { slug: "contain", name: "Contain" })).id;
  admin = await makeOperator(sql, "admin");
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

const listTools = async (token: string) => (await modernClient(server.mcpUrl, { token }).request("tools/list", {})).status;
const refresh = (connected: { clientId: string; refreshToken: string }) =>
  postForm(`${server.origin}/api/oauth/token`, {
    grant_type: "refresh_token",
    refresh_token: connected.refreshToken,
    client_id: connected.clientId,
  });

async function connectedMember(password = "member-password-1") {
  const op = await makeOperator(sql, "operator", [tenantId], password);
  const connected = await connectClient(sql, server, { operatorId: op.id, tenantId });
  expect(await listTools(connected.accessToken)).toBe(200);
  return { op, connected };
}

describe("containing an operator (review F7)", () => {
  it("an admin reset ends the operator's OAuth grants: access token refused, refresh token refused", async () => {
    const { op, connected } = await connectedMember();
    await resetPasswordAction(await signedInContext(sql, admin.id), { operatorId: op.id });
    expect(await listTools(connected.accessToken)).toBe(401);
    expect((await refresh(connected)).body.error).toBe("invalid_grant");
  });

  it("the operator's own password change and 'sign out everywhere' end their grants too", async () => {
    const first = await connectedMember("member-password-2");
    const ctx = await signedInContext(sql, first.op.id);
    await changePasswordAction(ctx, { currentPassword: "member-password-2", newPassword: "member-password-3" });
    expect(await listTools(first.connected.accessToken)).toBe(401);
    const second = await connectedMember();
    await signOutEverywhereAction(await signedInContext(sql, second.op.id), {});
    expect(await listTools(second.connected.accessToken)).toBe(401);
  });

  it("disabling revokes sessions, grants and minted keys by default; enabling again brings none of them back", async () => {
    const { op, connected } = await connectedMember();
    const key = await createKeyAction(await signedInContext(sql, op.id), { tenantId, name: "laptop" });
    const adminCtx = await signedInContext(sql, admin.id);
    const result = await setOperatorDisabledAction(adminCtx, { operatorId: op.id, disabled: true });
    expect(result).toMatchObject({ revokedKeys: 1, revokedGrants: 1 });
    await setOperatorDisabledAction(adminCtx, { operatorId: op.id, disabled: false });
    expect(await listTools(connected.accessToken)).toBe(401);
    expect(await verifyApiKey(sql, key.token)).toBeUndefined();
  });

  it("removing a member revokes the grants and the API keys it minted in that tenant", async () => {
    const { op, connected } = await connectedMember();
    const key = await createKeyAction(await signedInContext(sql, op.id), { tenantId, name: "ci" });
    await removeMemberAction(await signedInContext(sql, admin.id), { tenantId, operatorId: op.id });
    expect(await listTools(connected.accessToken)).toBe(401);
    expect(await verifyApiKey(sql, key.token)).toBeUndefined();
    const [event] = await sql`SELECT fields FROM audit_events WHERE action = 'key.revoke' AND fields->>'keyId' = ${key.keyId}`;
    expect(event?.fields).toMatchObject({ reason: "member_removed" });
  });

  it("an operator's connections list shows the API keys they minted next to their connected clients", async () => {
    const { op } = await connectedMember();
    const ctx = await signedInContext(sql, op.id);
    const key = await createKeyAction(ctx, { tenantId, name: "shown" });
    const view = await presentConnections(sql, await requireOperator(ctx));
    expect(view.mine).toHaveLength(1);
    expect(view.keys.map((k) => k.id)).toEqual([key.keyId]);
    expect(view.keys[0]).toMatchObject({ name: "shown", tenantSlug: "contain" });
  });
});
