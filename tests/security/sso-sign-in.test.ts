import { randomUUID } from "node:crypto";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setOperatorDisabled } from "../../db/queries/operators";
import { setTenantDisabled } from "../../db/queries/tenants";
import { authenticateOperator, type SsoClaims, type SsoSettings, signInWithSso } from "../../lib/auth";
import { freshDatabase } from "../helpers/db";
import { makeOperator, makeTenant } from "../ui/helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let jitTenant: { id: string; slug: string };

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  jitTenant = await makeTenant(sql, `sso-${randomUUID().slice(0, 6)}`);
});
afterAll(async () => {
  await db.drop();
});

const ISSUER = "https://idp.example.test";
const noJit: SsoSettings = { issuer: ISSUER, emailClaim: "email", jitTenantSlug: null, groupsClaim: null, adminGroup: null };
const jit = (): SsoSettings => ({ ...noJit, jitTenantSlug: jitTenant.slug, groupsClaim: "groups", adminGroup: "rf-admins" });
const newEmail = () => `${randomUUID().slice(0, 8)}@sso.test`;
const person = (email: string, more: SsoClaims = {}): SsoClaims => ({
  sub: `sub-${email}`,
  email,
  email_verified: true,
  ...more,
});

async function operatorRow(email: string) {
  const rows = await sql<{ id: string; role: string; password_hash: string; tenant_ids: string[] }[]>`
    SELECT o.id, o.role, o.password_hash, coalesce(array_agg(m.tenant_id::text) FILTER (WHERE m.tenant_id IS NOT NULL), '{}') AS tenant_ids
    FROM operators o LEFT JOIN operator_tenants m ON m.operator_id = o.id WHERE o.email = ${email} GROUP BY o.id`;
  return rows[0];
}

async function lastAudit(action: string) {
  const rows = await sql<
    {
      actor: string;
      operator_id: string | null;
      tenant_id: string | null;
      address: string | null;
      fields: Record<string, unknown>;
    }[]
  >`
    SELECT actor, operator_id, tenant_id, address, fields FROM audit_events WHERE action = ${action} ORDER BY id DESC LIMIT 1`;
  return rows[0];
}

describe("SSO: the identity provider's claims → an operator", () => {
  it("signs in an existing operator by verified email, whatever its case, and audits it with the client address", async () => {
    const op = await makeOperator(sql, "operator");
    const outcome = await signInWithSso(sql, {
      settings: noJit,
      claims: person(op.email.toUpperCase()),
      clientAddress: "10.9.0.1",
    });
    expect(outcome).toMatchObject({ ok: true, created: false, operator: { id: op.id, email: op.email } });
    expect(await lastAudit("operator.sso_sign_in")).toMatchObject({
      actor: `operator:${op.id}`,
      operator_id: op.id,
      address: "10.9.0.1",
      fields: { issuer: ISSUER, subject: `sub-${op.email.toUpperCase()}`, created: false },
    });
  });

  it("refuses the email claim unless email_verified is true, even for an existing operator and with JIT on", async () => {
    const op = await makeOperator(sql, "admin");
    for (const verified of [false, "false", undefined]) {
      const outcome = await signInWithSso(sql, { settings: jit(), claims: person(op.email, { email_verified: verified }) });
      expect(outcome).toEqual({ ok: false, reason: "email_unverified" });
    }
    // Some providers send the flag as a string.
    expect((await signInWithSso(sql, { settings: noJit, claims: person(op.email, { email_verified: "true" }) })).ok).toBe(true);
    const email = newEmail();
    await signInWithSso(sql, { settings: jit(), claims: person(email, { email_verified: false }) });
    expect(await operatorRow(email)).toBeUndefined();
  });

  it("takes a configured claim as the provider's own word (no email_verified), and refuses one that is not an email", async () => {
    const op = await makeOperator(sql, "operator");
    const upn: SsoSettings = { ...noJit, emailClaim: "upn" };
    expect(await signInWithSso(sql, { settings: upn, claims: { sub: "u1", upn: op.email } })).toMatchObject({ ok: true });
    expect(await signInWithSso(sql, { settings: upn, claims: { sub: "u2", upn: "not-an-email", email: op.email } })).toEqual({
      ok: false,
      reason: "no_email",
    });
    expect(await signInWithSso(sql, { settings: noJit, claims: { sub: "u3", email_verified: true } })).toEqual({
      ok: false,
      reason: "no_email",
    });
  });

  it("refuses an unknown person without JIT, naming them (not as the actor) in the trail", async () => {
    const email = newEmail();
    const outcome = await signInWithSso(sql, { settings: noJit, claims: person(email), clientAddress: "10.9.0.2" });
    expect(outcome).toEqual({ ok: false, reason: "unknown" });
    expect(await operatorRow(email)).toBeUndefined();
    expect(await lastAudit("operator.sso_refused")).toMatchObject({
      actor: "anonymous",
      operator_id: null,
      address: "10.9.0.2",
      fields: { reason: "unknown", email, issuer: ISSUER },
    });
  });

  it("refuses a disabled operator", async () => {
    const op = await makeOperator(sql, "admin");
    await setOperatorDisabled(sql, { operatorId: op.id, disabled: true });
    expect(await signInWithSso(sql, { settings: jit(), claims: person(op.email) })).toEqual({
      ok: false,
      reason: "disabled",
      operatorId: op.id,
    });
    expect(await lastAudit("operator.sso_refused")).toMatchObject({
      actor: "anonymous",
      fields: { reason: "disabled", operatorId: op.id },
    });
  });

  it("creates an unknown person just in time: admin in the admin group, else a member, always in the JIT tenant", async () => {
    const adminEmail = newEmail();
    const admin = await signInWithSso(sql, {
      settings: jit(),
      claims: person(adminEmail, { groups: ["staff", "rf-admins"], name: " Ada " }),
    });
    expect(admin).toMatchObject({
      ok: true,
      created: true,
      operator: { email: adminEmail, name: "Ada", mustChangePassword: false },
    });
    expect(await operatorRow(adminEmail)).toMatchObject({ role: "admin", tenant_ids: [jitTenant.id] });
    expect(await lastAudit("operator.jit_created")).toMatchObject({
      tenant_id: jitTenant.id,
      fields: { role: "admin", tenantId: jitTenant.id, issuer: ISSUER },
    });

    const memberEmail = newEmail();
    await signInWithSso(sql, { settings: jit(), claims: person(memberEmail, { groups: ["staff"] }) });
    expect(await operatorRow(memberEmail)).toMatchObject({ role: "operator", tenant_ids: [jitTenant.id] });
    // A single group may come as a string.
    const single = newEmail();
    await signInWithSso(sql, { settings: jit(), claims: person(single, { groups: "rf-admins" }) });
    expect((await operatorRow(single))?.role).toBe("admin");
    // Without a groups claim configured, nobody becomes an admin by a claim.
    const unconfigured = newEmail();
    await signInWithSso(sql, {
      settings: { ...jit(), groupsClaim: null },
      claims: person(unconfigured, { groups: ["rf-admins"] }),
    });
    expect((await operatorRow(unconfigured))?.role).toBe("operator");
  });

  it("gives a JIT operator a real scrypt hash of a secret nobody knows, so password sign-in cannot get in", async () => {
    const email = newEmail();
    await signInWithSso(sql, { settings: jit(), claims: person(email) });
    const row = await operatorRow(email);
    expect(row?.password_hash).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(await authenticateOperator(sql, { email, password: "a-guessed-password", clientAddress: "10.9.0.3" })).toEqual({
      ok: false,
      reason: "invalid",
    });
  });

  it("takes an operator's groups from the groups claim at each sign-in (what approval policies name), audited when they change", async () => {
    const op = await makeOperator(sql, "operator");
    const groups = async () => (await sql<{ groups: string[] }[]>`SELECT groups FROM operators WHERE id = ${op.id}`)[0]?.groups;
    await signInWithSso(sql, {
      settings: jit(),
      claims: person(op.email, { groups: ["finance", "board", "finance", "bad group"] }),
    });
    expect(await groups()).toEqual(["board", "finance"]);
    expect((await lastAudit("operator.sso_sign_in"))?.fields).toMatchObject({ groups: "board,finance" });
    await signInWithSso(sql, { settings: jit(), claims: person(op.email, { groups: "finance" }) });
    expect(await groups()).toEqual(["finance"]);
    await signInWithSso(sql, { settings: jit(), claims: person(op.email, { groups: "finance" }) });
    expect((await lastAudit("operator.sso_sign_in"))?.fields.groups).toBeUndefined();
    // Without a groups claim configured, sign-ins leave the groups an admin set.
    await signInWithSso(sql, { settings: noJit, claims: person(op.email, { groups: ["other"] }) });
    expect(await groups()).toEqual(["finance"]);
  });

  it("never changes the role of an existing operator from the groups claim", async () => {
    const op = await makeOperator(sql, "operator");
    await signInWithSso(sql, { settings: jit(), claims: person(op.email, { groups: ["rf-admins"] }) });
    expect((await operatorRow(op.email))?.role).toBe("operator");
  });

  it("creates one operator when the same person's first sign-ins arrive at once", async () => {
    const email = newEmail();
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () => signInWithSso(sql, { settings: jit(), claims: person(email, { groups: ["rf-admins"] }) })),
    );
    const ids = new Set(outcomes.map((outcome) => (outcome.ok ? outcome.operator.id : "refused")));
    expect([...ids]).toEqual([(await operatorRow(email))?.id]);
    expect(outcomes.filter((outcome) => outcome.ok && outcome.created)).toHaveLength(1);
  });

  it("refuses JIT into a missing or disabled tenant", async () => {
    const missing = await signInWithSso(sql, {
      settings: { ...jit(), jitTenantSlug: "no-such-tenant" },
      claims: person(newEmail()),
    });
    expect(missing).toEqual({ ok: false, reason: "jit_unavailable" });
    const tenant = await makeTenant(sql, `sso-off-${randomUUID().slice(0, 6)}`);
    await setTenantDisabled(sql, { tenantId: tenant.id, disabled: true });
    const email = newEmail();
    expect(await signInWithSso(sql, { settings: { ...jit(), jitTenantSlug: tenant.slug }, claims: person(email) })).toEqual({
      ok: false,
      reason: "jit_unavailable",
    });
    expect(await operatorRow(email)).toBeUndefined();
  });
});
