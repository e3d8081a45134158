import type { JWT } from "next-auth/jwt";
import { generate } from "otplib";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertGrant } from "../../db/queries/oauth-grants";
import { resetOperatorMfa } from "../../lib/admin";
import {
  beginMfaEnrolment,
  confirmMfaEnrolment,
  MFA_THROTTLE,
  PasswordChangeRequired,
  requireOperator,
  verifySecondFactor,
} from "../../lib/auth";
import { presentOperatorList } from "../../lib/ui/presenters/tenants";
import { freshDatabase } from "../helpers/db";
import { makeOperator, makeTenant } from "../ui/helpers";
import { signedInContext } from "./helpers";
import { KEY, mfaHarness, PASSWORD, stepOf } from "./mfa-harness";

// Issue 33 (review 3, ASVS 2.8): TOTP for password operators with one-time recovery codes, required
// for admins signed in with a password. Real Postgres, the real next-auth callbacks. The
// re-authentication before sensitive actions (3.7.1) is tests/security/reauth.test.ts.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
const { passwordSignIn, sessionContext, enrol, registerClient, auditActions } = mfaHarness(() => sql);

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db.drop();
});

describe("TOTP enrolment", () => {
  it("shows a secret and an otpauth:// URI, refuses a wrong first code, and stores the secret sealed and the codes hashed", async () => {
    const op = await makeOperator(sql, "operator");
    const started = await beginMfaEnrolment(sql, { operatorId: op.id, accountName: op.email, keyMaterial: KEY });
    expect(started.uri).toMatch(/^otpauth:\/\/totp\/Runifold:/);
    expect(started.uri).toContain(`secret=${started.secret}`);
    await expect(
      confirmMfaEnrolment(sql, { operatorId: op.id, sessionId: null, code: "000000", clientAddress: null, keyMaterial: KEY }),
    ).rejects.toMatchObject({ code: "bad_request" });
    const { recoveryCodes } = await confirmMfaEnrolment(sql, {
      operatorId: op.id,
      sessionId: null,
      code: await generate({ secret: started.secret }),
      clientAddress: null,
      keyMaterial: KEY,
    });
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);

    const [row] = await sql<{ mfa_secret_sealed: string; mfa_enabled_at: Date | null }[]>`
      SELECT mfa_secret_sealed, mfa_enabled_at FROM operators WHERE id = ${op.id}`;
    expect(row?.mfa_enabled_at).toBeInstanceOf(Date);
    expect(row?.mfa_secret_sealed).not.toContain(started.secret);
    const stored = await sql<{ code_hash: string }[]>`SELECT code_hash FROM operator_recovery_codes WHERE operator_id = ${op.id}`;
    expect(stored).toHaveLength(10);
    for (const code of recoveryCodes) {
      expect(stored.map((s) => s.code_hash)).not.toContain(code);
    }
    // Nothing secret in the trail: neither the TOTP secret nor a recovery code.
    const trail = JSON.stringify(await sql`SELECT fields FROM audit_events WHERE operator_id = ${op.id}`);
    expect(trail).not.toContain(started.secret);
    for (const code of recoveryCodes) expect(trail).not.toContain(code);
    expect(await auditActions(op.id)).toEqual(expect.arrayContaining(["auth.mfa.failure", "auth.mfa.enrolled"]));
  });
});

describe("sign-in with MFA on", () => {
  it("needs the code: the password alone reaches nothing, the code completes the session, and a code is good once", async () => {
    const op = await makeOperator(sql, "operator", [], PASSWORD);
    const { secret } = await enrol(op.id, op.email);
    const token = (await passwordSignIn(op.email, PASSWORD)) as JWT;
    expect(token?.sid).toEqual(expect.any(String));
    const ctx = sessionContext(token);
    // Before the second step: refused everywhere, the password page included.
    for (const opts of [{}, { duringPasswordChange: true }, { duringMfaEnrolment: true }]) {
      const refused = await requireOperator(ctx, opts).catch((error: unknown) => error);
      expect(stepOf(refused)).toBe("second_factor");
      expect(refused).toMatchObject({ code: "unauthenticated" });
    }
    const code = await generate({ secret });
    const ok = await verifySecondFactor(sql, {
      operatorId: op.id,
      sessionId: token.sid as string,
      code,
      clientAddress: "10.9.0.1",
      keyMaterial: KEY,
    });
    expect(ok).toMatchObject({ ok: true, via: "totp" });
    expect((await requireOperator(ctx)).id).toBe(op.id);

    // The same code again (a second session, a replay): refused.
    const second = (await passwordSignIn(op.email, PASSWORD)) as JWT;
    expect(
      await verifySecondFactor(sql, {
        operatorId: op.id,
        sessionId: second.sid as string,
        code,
        clientAddress: null,
        keyMaterial: KEY,
      }),
    ).toEqual({ ok: false, reason: "invalid" });
    expect(stepOf(await requireOperator(sessionContext(second)).catch((e: unknown) => e))).toBe("second_factor");
    expect(await auditActions(op.id)).toEqual(expect.arrayContaining(["auth.mfa.success", "auth.mfa.failure"]));
  });

  it("refuses wrong codes and then throttles, the right code included, until the lock ends", async () => {
    const op = await makeOperator(sql, "operator", [], PASSWORD);
    const { secret } = await enrol(op.id, op.email);
    const token = (await passwordSignIn(op.email, PASSWORD, "10.9.1.1")) as JWT;
    const attempt = (code: string) =>
      verifySecondFactor(sql, {
        operatorId: op.id,
        sessionId: token.sid as string,
        code,
        clientAddress: "10.9.1.1",
        keyMaterial: KEY,
      });
    for (let i = 0; i < MFA_THROTTLE.operator.limit; i++)
      expect(await attempt("123456")).toEqual({ ok: false, reason: "invalid" });
    // Locked: the right code is not even checked, from this address or another one.
    expect(await attempt(await generate({ secret }))).toMatchObject({ ok: false, reason: "throttled" });
    expect(
      await verifySecondFactor(sql, {
        operatorId: op.id,
        sessionId: token.sid as string,
        code: await generate({ secret }),
        clientAddress: "10.9.2.2",
        keyMaterial: KEY,
      }),
    ).toMatchObject({ ok: false, reason: "throttled" });
    expect(stepOf(await requireOperator(sessionContext(token)).catch((e: unknown) => e))).toBe("second_factor");
    expect(await auditActions(op.id)).toEqual(expect.arrayContaining(["auth.mfa.failure", "auth.mfa.throttled"]));

    // Once the lock is over, the right code signs in and clears the count.
    await sql`UPDATE login_throttle SET locked_until = now() - interval '1 second' WHERE key = ${`mfa:${op.id}`}`;
    expect(await attempt(await generate({ secret }))).toMatchObject({ ok: true });
    expect(await sql`SELECT 1 FROM login_throttle WHERE key = ${`mfa:${op.id}`}`).toHaveLength(0);
  });

  it("takes a recovery code instead of the code, once", async () => {
    const op = await makeOperator(sql, "operator", [], PASSWORD);
    const { recoveryCodes } = await enrol(op.id, op.email);
    const code = recoveryCodes[3] as string;
    const first = (await passwordSignIn(op.email, PASSWORD)) as JWT;
    // As typed: lower case, without dashes.
    const typed = code.toLowerCase().replaceAll("-", " ");
    expect(
      await verifySecondFactor(sql, {
        operatorId: op.id,
        sessionId: first.sid as string,
        code: typed,
        clientAddress: null,
        keyMaterial: KEY,
      }),
    ).toEqual({ ok: true, via: "recovery", recoveryCodesLeft: 9 });
    expect((await requireOperator(sessionContext(first))).id).toBe(op.id);

    const again = (await passwordSignIn(op.email, PASSWORD)) as JWT;
    expect(
      await verifySecondFactor(sql, {
        operatorId: op.id,
        sessionId: again.sid as string,
        code,
        clientAddress: null,
        keyMaterial: KEY,
      }),
    ).toEqual({ ok: false, reason: "invalid" });
    expect(stepOf(await requireOperator(sessionContext(again)).catch((e: unknown) => e))).toBe("second_factor");
    expect(await auditActions(op.id)).toContain("auth.mfa.recovery_code_used");
  });

  it("answers hostile codes as wrong ones (never an error), and they count toward the lock", async () => {
    const op = await makeOperator(sql, "operator", [], PASSWORD);
    await enrol(op.id, op.email);
    const token = (await passwordSignIn(op.email, PASSWORD)) as JWT;
    for (const code of ["\u0000\u0000\u0000\u0000\u0000\u0000", "١٢٣٤٥٦", "12345６", "' OR 1=1 --", "A".repeat(100)]) {
      expect(
        await verifySecondFactor(sql, {
          operatorId: op.id,
          sessionId: token.sid as string,
          code,
          clientAddress: null,
          keyMaterial: KEY,
        }),
      ).toEqual({ ok: false, reason: "invalid" });
    }
    // Five of them reached the operator's limit: the key is locked now.
    const [row] = await sql<{ locked: boolean }[]>`
      SELECT locked_until > now() AS locked FROM login_throttle WHERE key = ${`mfa:${op.id}`}`;
    expect(row?.locked).toBe(true);
  });

  it("leaves a sign-in without MFA as it was (no second step)", async () => {
    const op = await makeOperator(sql, "operator", [], PASSWORD);
    const token = (await passwordSignIn(op.email, PASSWORD)) as JWT;
    expect((await requireOperator(sessionContext(token))).id).toBe(op.id);
  });
});

describe("admins must enrol (RUNIFOLD_ADMIN_MFA=required, the default)", () => {
  it("sends an admin signed in with a password and no MFA to enrolment before anything else", async () => {
    const admin = await makeOperator(sql, "admin", [], PASSWORD);
    const token = (await passwordSignIn(admin.email, PASSWORD)) as JWT;
    const refused = await requireOperator(sessionContext(token, true)).catch((e: unknown) => e);
    expect(stepOf(refused)).toBe("mfa_enrolment");
    expect((refused as Error).message).toContain("/account/mfa");
    // The enrolment page and its actions pass; so does the same admin where the rule is off.
    expect((await requireOperator(sessionContext(token, true), { duringMfaEnrolment: true })).id).toBe(admin.id);
    expect((await requireOperator(sessionContext(token, false))).id).toBe(admin.id);
    // An operator (not admin) is not required to.
    const member = await makeOperator(sql, "operator", [], PASSWORD);
    const memberToken = (await passwordSignIn(member.email, PASSWORD)) as JWT;
    expect((await requireOperator(sessionContext(memberToken, true))).id).toBe(member.id);

    // Enrolled, the admin's next sign-in asks for the code and then reaches the console.
    const { secret } = await enrol(admin.id, admin.email);
    const next = (await passwordSignIn(admin.email, PASSWORD)) as JWT;
    expect(stepOf(await requireOperator(sessionContext(next, true)).catch((e: unknown) => e))).toBe("second_factor");
    await verifySecondFactor(sql, {
      operatorId: admin.id,
      sessionId: next.sid as string,
      code: await generate({ secret }),
      clientAddress: null,
      keyMaterial: KEY,
    });
    expect((await requireOperator(sessionContext(next, true))).id).toBe(admin.id);
  });

  it("puts a forced password change first: the password page passes, then enrolment is due", async () => {
    const admin = await makeOperator(sql, "admin", [], PASSWORD);
    await sql`UPDATE operators SET must_change_password = true WHERE id = ${admin.id}`;
    const ctx = sessionContext((await passwordSignIn(admin.email, PASSWORD)) as JWT, true);
    expect((await requireOperator(ctx, { duringPasswordChange: true })).id).toBe(admin.id);
    expect(await requireOperator(ctx, { duringMfaEnrolment: true }).catch((e: unknown) => e)).toBeInstanceOf(
      PasswordChangeRequired,
    );
    await sql`UPDATE operators SET must_change_password = false WHERE id = ${admin.id}`;
    expect(stepOf(await requireOperator(ctx, { duringPasswordChange: true }).catch((e: unknown) => e))).toBe("mfa_enrolment");
  });

  it("an admin's reset (CLI and lib/admin) removes the factor and ends the sessions and OAuth grants", async () => {
    const tenant = await makeTenant(sql, "tenant-mfa-reset");
    const admin = await makeOperator(sql, "admin", [], PASSWORD);
    await enrol(admin.id, admin.email);
    const ctx = await signedInContext(sql, admin.id);
    const grant = await insertGrant(sql, {
      clientId: await registerClient("Reset client"),
      operatorId: admin.id,
      tenantId: tenant.id,
      scopes: ["mcp"],
      resource: "http://console.test/api/mcp",
      actor: `operator:${admin.id}`,
    });
    // Admins see who has a second factor (Tenants → Operators).
    const listed = async () => (await presentOperatorList(sql, await requireOperator(ctx))).find((o) => o.id === admin.id)?.mfa;
    expect(await listed()).toBe(true);
    expect(await resetOperatorMfa({ sql, actor: { kind: "cli", user: "ops", host: "h" } }, { operatorId: admin.id })).toEqual({
      email: admin.email,
      hadMfa: true,
    });
    await expect(requireOperator(ctx)).rejects.toMatchObject({ code: "unauthenticated" });
    expect(await sql`SELECT 1 FROM operator_recovery_codes WHERE operator_id = ${admin.id}`).toHaveLength(0);
    const other = await makeOperator(sql, "admin", [], PASSWORD);
    expect(
      (await presentOperatorList(sql, await requireOperator(await signedInContext(sql, other.id)))).find((o) => o.id === admin.id)
        ?.mfa,
    ).toBe(false);
    const [row] = await sql`SELECT mfa_secret_sealed FROM operators WHERE id = ${admin.id}`;
    expect(row?.mfa_secret_sealed).toBeNull();
    const events = await sql`SELECT action FROM audit_events WHERE fields->>'targetOperatorId' = ${admin.id} ORDER BY id`;
    expect(events.map((e) => e.action)).toEqual(["auth.mfa.reset", "oauth.grant_revoked"]);
    // The grants it approved end with it (review F7), as for a password reset.
    const [revoked] = await sql`SELECT revoked_at, revoked_reason FROM oauth_grants WHERE id = ${grant.id}`;
    expect(revoked?.revoked_at).toBeInstanceOf(Date);
    expect(revoked?.revoked_reason).toBe("mfa_reset");
  });
});
