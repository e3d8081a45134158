import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endOperatorSession, findOperatorById } from "../../db/queries/operators";
import { findTenantBySlug } from "../../db/queries/tenants";
import { createKey, createTenant, SEED_ACTOR } from "../../lib/admin";
import { authenticateOperator, PasswordChangeRequired, requireOperator, verifyApiKey } from "../../lib/auth";
import { changePasswordAction, resetPasswordAction, signOutEverywhereAction } from "../../lib/ui/actions/account-actions";
import { createKeyAction } from "../../lib/ui/actions/key-actions";
import { setOperatorDisabledAction } from "../../lib/ui/actions/tenant-actions";
import { prepareDatabase } from "../../scripts/lib/stack";
import { runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { makeOperator, makeTenant } from "../ui/helpers";
import { signedInContext } from "./helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db.drop();
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Error & { code?: string },
  );

describe("seeding (H3: RUNIFOLD_SEED)", () => {
  it("with DATABASE_URL seeds only a first admin that must change its password (before: demo tenants and a full-scope key)", async () => {
    const empty = await freshDatabase();
    try {
      const dataRoot = mkdtempSync(path.join(tmpdir(), "rf-seed-"));
      const prepared = await prepareDatabase({
        projectRoot: process.cwd(),
        dataRoot,
        databaseUrl: empty.url,
        embeddedName: "x",
        log: () => {},
      });
      expect(prepared.seed?.apiKey).toBeUndefined();
      expect(prepared.seed?.operator?.email).toBe("admin@runifold.local");
      expect(await empty.sql`SELECT slug FROM tenants`).toHaveLength(0);
      expect(await empty.sql`SELECT id FROM api_keys`).toHaveLength(0);
      const [admin] = await empty.sql`SELECT must_change_password FROM operators`;
      expect(admin?.must_change_password).toBe(true);
      const again = await prepareDatabase({
        projectRoot: process.cwd(),
        dataRoot,
        databaseUrl: empty.url,
        embeddedName: "x",
        log: () => {},
      });
      expect(again.seed).toBeUndefined(); // nothing shown twice
    } finally {
      await empty.drop();
    }
  });

  it("RUNIFOLD_SEED=off seeds nothing", async () => {
    const empty = await freshDatabase();
    try {
      const dataRoot = mkdtempSync(path.join(tmpdir(), "rf-seed-"));
      const prepared = await prepareDatabase({
        projectRoot: process.cwd(),
        dataRoot,
        databaseUrl: empty.url,
        embeddedName: "x",
        log: () => {},
        seed: "off",
      });
      expect(prepared.seed).toBeUndefined();
      expect(await empty.sql`SELECT id FROM operators`).toHaveLength(0);
    } finally {
      await empty.drop();
    }
  });
});

describe("passwords (H3: change re-authenticated, admin reset forces a change)", () => {
  it("changes the own password after re-authenticating; the old one stops working and other sessions end", async () => {
    const op = await makeOperator(sql, "operator", [], "old-password-123");
    const here = await signedInContext(sql, op.id);
    const elsewhere = await signedInContext(sql, op.id);
    const wrong = await refusal(changePasswordAction(here, { currentPassword: "not-it", newPassword: "new-password-456" }));
    expect(wrong?.code).toBe("bad_request");
    await changePasswordAction(here, { currentPassword: "old-password-123", newPassword: "new-password-456" });
    expect((await authenticateOperator(sql, { email: op.email, password: "old-password-123", clientAddress: null })).ok).toBe(
      false,
    );
    expect((await authenticateOperator(sql, { email: op.email, password: "new-password-456", clientAddress: null })).ok).toBe(
      true,
    );
    await expect(requireOperator(here)).resolves.toMatchObject({ id: op.id });
    expect((await refusal(requireOperator(elsewhere)))?.code).toBe("unauthenticated");
  });

  it("an admin reset ends every session and allows nothing but a password change until one is chosen", async () => {
    const admin = await makeOperator(sql, "admin");
    const op = await makeOperator(sql, "operator", [], "before-reset-1");
    const opSession = await signedInContext(sql, op.id);
    const { temporaryPassword } = await resetPasswordAction(await signedInContext(sql, admin.id), { operatorId: op.id });
    expect((await refusal(requireOperator(opSession)))?.code).toBe("unauthenticated");
    const fresh = await signedInContext(sql, op.id);
    expect(await refusal(requireOperator(fresh))).toBeInstanceOf(PasswordChangeRequired);
    await changePasswordAction(fresh, { currentPassword: temporaryPassword, newPassword: "after-reset-123" });
    await expect(requireOperator(fresh)).resolves.toMatchObject({ id: op.id });
    expect((await findOperatorById(sql, op.id))?.must_change_password).toBe(false);
  });

  it("only an admin resets passwords", async () => {
    const op = await makeOperator(sql, "operator");
    const other = await makeOperator(sql, "operator");
    expect((await refusal(resetPasswordAction(await signedInContext(sql, op.id), { operatorId: other.id })))?.code).toBe(
      "forbidden",
    );
  });
});

describe("sessions end at once (M5)", () => {
  it("a signed-out session is refused on its next request (before: valid until the JWT expired)", async () => {
    const op = await makeOperator(sql, "operator");
    const ctx = await signedInContext(sql, op.id);
    await expect(requireOperator(ctx)).resolves.toBeDefined();
    await endOperatorSession(sql, ctx.sessionId);
    expect((await refusal(requireOperator(ctx)))?.code).toBe("unauthenticated");
  });

  it("sign out everywhere ends every session, through the session version", async () => {
    const op = await makeOperator(sql, "operator");
    const a = await signedInContext(sql, op.id);
    const b = await signedInContext(sql, op.id);
    await signOutEverywhereAction(a, {});
    for (const ctx of [a, b]) expect((await refusal(requireOperator(ctx)))?.code).toBe("unauthenticated");
    // A session row alone is not enough: a token issued under the old version stays refused.
    const stale = {
      ...b,
      sessionClaims: async () => ({ sessionId: (await signedInContext(sql, op.id)).sessionId, sessionVersion: 0 }),
    };
    expect((await refusal(requireOperator(stale)))?.code).toBe("unauthenticated");
  });
});

describe("keys and tenants (H3, M5)", () => {
  it("keys record their creator, and disabling the operator can revoke them in one action", async () => {
    const tenant = await makeTenant(sql, "keys-owner");
    const admin = await makeOperator(sql, "admin");
    const member = await makeOperator(sql, "operator", [tenant.id]);
    const key = await createKeyAction(await signedInContext(sql, member.id), { tenantId: tenant.id, name: "laptop" });
    const [row] = await sql`SELECT created_by, created_by_operator_id FROM api_keys WHERE id = ${key.keyId}`;
    expect(row).toEqual({ created_by: `operator:${member.id}`, created_by_operator_id: member.id });
    const other = await createKey({ sql, actor: SEED_ACTOR }, { tenantId: tenant.id, name: "seeded" });
    const result = await setOperatorDisabledAction(await signedInContext(sql, admin.id), {
      operatorId: member.id,
      disabled: true,
      revokeKeys: true,
    });
    expect(result).toEqual({ revokedKeys: 1, revokedGrants: 0 });
    expect(await verifyApiKey(sql, key.token)).toBeUndefined();
    expect(await verifyApiKey(sql, other.token)).toBeDefined();
  });

  it("a disabled tenant's keys answer like unknown ones; `runifold tenants disable` does it (before: Unknown command)", async () => {
    const tenant = await createTenant({ sql, actor: SEED_ACTOR }, { slug: "to-disable" });
    const key = await createKey({ sql, actor: SEED_ACTOR }, { tenantId: tenant.id, name: "k" });
    expect(await verifyApiKey(sql, key.token)).toBeDefined();
    const run = await runCli(["tenants", "disable", "to-disable"], { DATABASE_URL: db.url, RUNIFOLD_LOG_LEVEL: "silent" });
    expect(run.code).toBe(0);
    expect((await findTenantBySlug(sql, "to-disable"))?.disabled_at).not.toBeNull();
    expect(await verifyApiKey(sql, key.token)).toBeUndefined();
    expect(await verifyApiKey(sql, "rf_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).toBeUndefined();
    expect((await runCli(["tenants", "enable", "to-disable"], { DATABASE_URL: db.url })).code).toBe(0);
    expect(await verifyApiKey(sql, key.token)).toBeDefined();
  });

  it("operators create takes the password from stdin or RUNIFOLD_PASSWORD instead of argv (L9)", async () => {
    const run = await runCli(["operators", "create", "--email", "env@ops.test", "--role", "admin", "--json"], {
      DATABASE_URL: db.url,
      RUNIFOLD_PASSWORD: "from-the-environment-1",
      RUNIFOLD_LOG_LEVEL: "silent",
    });
    expect(run.code).toBe(0);
    expect(
      (await authenticateOperator(sql, { email: "env@ops.test", password: "from-the-environment-1", clientAddress: null })).ok,
    ).toBe(true);
  });
});
