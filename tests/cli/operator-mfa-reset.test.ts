import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { beginMfaEnrolment, requireOperator } from "../../lib/auth";
import { freshDatabase } from "../helpers/db";
import { signedInContext } from "../security/helpers";
import { makeOperator } from "../ui/helpers";
import { lastJson, runCli } from "./run-cli";

/**
 * `runifold operators reset-mfa --email E` (docs/cli.md): an admin removes an operator's second
 * factor (a lost phone without recovery codes, a changed RUNIFOLD_MFA_KEY) and ends its sessions.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let env: Record<string, string>;

beforeAll(async () => {
  db = await freshDatabase();
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await db?.drop();
});

describe("operators reset-mfa", { timeout: 120_000 }, () => {
  it("removes the secret and recovery codes, ends the sessions, is audited; an unknown email exits 4", async () => {
    const op = await makeOperator(db.sql, "admin");
    await beginMfaEnrolment(db.sql, { operatorId: op.id, accountName: op.email, keyMaterial: "cli-test-key-0123456789" });
    await db.sql`UPDATE operators SET mfa_enabled_at = now() WHERE id = ${op.id}`;
    await db.sql`INSERT INTO operator_recovery_codes (operator_id, code_hash) VALUES (${op.id}, 'h1'), (${op.id}, 'h2')`;
    const ctx = await signedInContext(db.sql, op.id);
    expect((await runCli(["operators", "list"], env)).stdout).toMatch(new RegExp(`${op.email}\\s+admin\\s+active\\s+totp`));

    const reset = await runCli(["operators", "reset-mfa", "--email", op.email, "--json"], env);
    expect(reset.code).toBe(0);
    expect(lastJson(reset)).toEqual({ email: op.email, hadMfa: true, sessionsEnded: true });
    const [row] = await db.sql`SELECT mfa_secret_sealed, mfa_enabled_at FROM operators WHERE id = ${op.id}`;
    expect(row).toEqual({ mfa_secret_sealed: null, mfa_enabled_at: null });
    expect(await db.sql`SELECT 1 FROM operator_recovery_codes WHERE operator_id = ${op.id}`).toHaveLength(0);
    await expect(requireOperator(ctx)).rejects.toMatchObject({ code: "unauthenticated" });
    const [event] = await db.sql`SELECT actor, action FROM audit_events WHERE action = 'auth.mfa.reset'`;
    expect(event?.actor).toMatch(/^cli:/);

    const again = await runCli(["operators", "reset-mfa", "--email", op.email], env);
    expect(again.stdout).toContain("had no two-factor authentication");
    const unknown = await runCli(["operators", "reset-mfa", "--email", "nobody@ops.test"], env);
    expect(unknown.code).toBe(4);
  });
});
