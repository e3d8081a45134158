import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import type { JWT } from "next-auth/jwt";
import { generate } from "otplib";
import type postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetOperatorMfa } from "../../lib/admin";
import { authenticateOperator, beginMfaEnrolment, confirmMfaEnrolment, disableOwnMfa, verifySecondFactor } from "../../lib/auth";
import { createOAuthConfig } from "../../lib/oauth";
import { changePasswordAction, changePasswordFrom, resetPasswordAction } from "../../lib/ui/actions/account-actions";
import { consentDecisionAction } from "../../lib/ui/actions/consent-actions";
import { createKeyAction } from "../../lib/ui/actions/key-actions";
import { runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { makeOperator, makeTenant } from "../ui/helpers";
import { signedInContext } from "./helpers";
import { KEY, mfaHarness, PASSWORD } from "./mfa-harness";

// Issue 33, ASVS 4.0.3 2.2.3: with SMTP configured, every change to an operator's authentication
// details emails the operator (lib/auth/credential-notice.ts), after the change and best effort.
// A real SMTP server on loopback, real Postgres, the console's actions, lib/auth and the CLI process.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let inbox: SmtpInbox;
const { passwordSignIn, registerClient } = mfaHarness(() => sql);

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  inbox = await startSmtpInbox();
});
afterEach(() => {
  delete process.env.RUNIFOLD_SMTP_URL;
  inbox.mails.length = 0;
});
afterAll(async () => {
  delete process.env.RUNIFOLD_SMTP_URL;
  await inbox?.close();
  await db?.drop();
});

/** The notices the audit trail holds for one operator, oldest first. */
async function notices(operatorId: string): Promise<{ action: string; change: string; error: string | null }[]> {
  return sql<{ action: string; change: string; error: string | null }[]>`
    SELECT action, fields->>'change' AS change, fields->>'error' AS error FROM audit_events
    WHERE starts_with(action, 'auth.notice.') AND fields->>'targetOperatorId' = ${operatorId} ORDER BY id`;
}

/** The one mail sent so far, which must have gone to `email` and nobody else; none of `secrets` is in it. */
function onlyMail(email: string, subject: RegExp, secrets: string[]) {
  expect(inbox.mails.map((mail) => mail.to)).toEqual([[email]]);
  const [mail] = inbox.mails;
  expect(mail?.subject).toMatch(subject);
  for (const secret of secrets) {
    expect(mail?.body).not.toContain(secret);
    expect(mail?.subject).not.toContain(secret);
  }
  expect(mail?.body).toMatch(/When: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
  expect(mail?.body).toContain("If it was not you");
  inbox.mails.length = 0;
  return mail?.body ?? "";
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("credential-change notices (ASVS 2.2.3)", { timeout: 120_000 }, () => {
  it("with RUNIFOLD_SMTP_URL unset: the change works and nothing is sent or audited as a notice", async () => {
    const op = await makeOperator(sql, "operator", [], "unset-before-123");
    await changePasswordAction(await signedInContext(sql, op.id), {
      currentPassword: "unset-before-123",
      newPassword: "unset-after-456",
    });
    expect((await authenticateOperator(sql, { email: op.email, password: "unset-after-456", clientAddress: null })).ok).toBe(
      true,
    );
    expect(inbox.mails).toEqual([]);
    expect(await notices(op.id)).toEqual([]);
  });

  it("password changed by the operator and reset by an admin (console and CLI): one mail each to the account, no password in it", async () => {
    process.env.RUNIFOLD_SMTP_URL = inbox.url;
    const op = await makeOperator(sql, "operator", [], "notice-before-123");
    await changePasswordFrom("203.0.113.7")(await signedInContext(sql, op.id), {
      currentPassword: "notice-before-123",
      newPassword: "notice-after-456",
    });
    const changed = onlyMail(op.email, /^Your Runifold password was changed$/, ["notice-before-123", "notice-after-456"]);
    expect(changed).toContain("From address: 203.0.113.7");
    expect(changed).toContain("By: a sign-in to your account");

    const admin = await makeOperator(sql, "admin");
    const { temporaryPassword } = await resetPasswordAction(await signedInContext(sql, admin.id), { operatorId: op.id });
    expect(onlyMail(op.email, /password was reset by an administrator/, [temporaryPassword])).toContain("By: an administrator");

    // The CLI is its own process: it reads RUNIFOLD_SMTP_URL from its environment and mails before it exits.
    const cli = await runCli(["operators", "reset-password", "--email", op.email, "--json"], {
      DATABASE_URL: db.url,
      RUNIFOLD_SMTP_URL: inbox.url,
      RUNIFOLD_LOG_LEVEL: "silent",
    });
    expect(cli.code).toBe(0);
    const cliPassword = (JSON.parse(cli.lines.at(-1) ?? "{}") as { temporaryPassword: string }).temporaryPassword;
    expect(cliPassword).toEqual(expect.any(String));
    expect(onlyMail(op.email, /password was reset by an administrator/, [cliPassword])).toContain("From address: not known");

    expect(await notices(op.id)).toEqual([
      { action: "auth.notice.sent", change: "password_changed", error: null },
      { action: "auth.notice.sent", change: "password_reset", error: null },
      { action: "auth.notice.sent", change: "password_reset", error: null },
    ]);
  });

  it("MFA turned on, a recovery code used, turned off by the operator, removed by an admin: one mail each, no secret or code in any", async () => {
    process.env.RUNIFOLD_SMTP_URL = inbox.url;
    const op = await makeOperator(sql, "operator", [], PASSWORD);
    const { secret } = await beginMfaEnrolment(sql, { operatorId: op.id, accountName: op.email, keyMaterial: KEY });
    expect(inbox.mails).toEqual([]); // nothing has changed until the first code confirms the device
    const code = await generate({ secret });
    const { recoveryCodes } = await confirmMfaEnrolment(sql, {
      operatorId: op.id,
      sessionId: null,
      code,
      clientAddress: "198.51.100.4",
      keyMaterial: KEY,
    });
    const enrolled = onlyMail(op.email, /^Two-factor authentication was turned on/, [secret, code, ...recoveryCodes]);
    expect(enrolled).toContain("From address: 198.51.100.4");

    const token = (await passwordSignIn(op.email, PASSWORD)) as JWT;
    const used = recoveryCodes[0] as string;
    const outcome = await verifySecondFactor(sql, {
      operatorId: op.id,
      sessionId: token.sid as string,
      code: used,
      clientAddress: "198.51.100.5",
      keyMaterial: KEY,
    });
    expect(outcome).toMatchObject({ ok: true, via: "recovery" });
    const recovery = onlyMail(op.email, /recovery code of your Runifold account was used/, recoveryCodes);
    expect(recovery).toContain("Recovery codes left: 9");
    expect(recovery).toContain("From address: 198.51.100.5");

    await disableOwnMfa(sql, { operatorId: op.id, clientAddress: "198.51.100.6" });
    onlyMail(op.email, /^Two-factor authentication was turned off/, [secret, ...recoveryCodes]);

    const again = await beginMfaEnrolment(sql, { operatorId: op.id, accountName: op.email, keyMaterial: KEY });
    await confirmMfaEnrolment(sql, {
      operatorId: op.id,
      sessionId: null,
      code: await generate({ secret: again.secret }),
      clientAddress: null,
      keyMaterial: KEY,
    });
    inbox.mails.length = 0;
    const admin = await makeOperator(sql, "admin");
    await resetOperatorMfa({ sql, actor: { kind: "operator", id: admin.id, email: admin.email } }, { operatorId: op.id });
    onlyMail(op.email, /administrator removed two-factor authentication/, [again.secret]);
    // A reset of an operator without MFA changes no factor: no mail.
    await resetOperatorMfa({ sql, actor: { kind: "operator", id: admin.id, email: admin.email } }, { operatorId: op.id });
    expect(inbox.mails).toEqual([]);

    expect((await notices(op.id)).map((row) => row.change)).toEqual([
      "mfa_enrolled",
      "recovery_code_used",
      "mfa_disabled",
      "mfa_enrolled",
      "mfa_reset",
    ]);
  });

  it("an API key minted and an OAuth client authorized in the operator's name: one mail each, never the token or the code", async () => {
    process.env.RUNIFOLD_SMTP_URL = inbox.url;
    const tenant = await makeTenant(sql, "notice-keys");
    const op = await makeOperator(sql, "operator", [tenant.id]);
    const key = await createKeyAction(await signedInContext(sql, op.id), { tenantId: tenant.id, name: "laptop" });
    const minted = onlyMail(op.email, /^A Runifold API key was created in your name$/, [
      key.token,
      key.token.split("_").at(-1) ?? "",
    ]);
    expect(minted).toContain(`Key: laptop (${key.keyId}) in tenant notice-keys`);

    const config = createOAuthConfig({ publicUrl: "http://console.test" });
    const clientId = await registerClient("Notice test client\r\nBy: someone else");
    const verifier = randomBytes(32).toString("base64url");
    const request = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:7777/cb",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "st-1",
      scope: "mcp",
      resource: config.resource,
    });
    const target = await consentDecisionAction(config)(await signedInContext(sql, op.id), {
      request: request.toString(),
      decision: "approve",
      tenantId: tenant.id,
      scopes: ["mcp"],
    });
    const code = new URL(target).searchParams.get("code") ?? "";
    expect(code).not.toBe("");
    const connected = onlyMail(op.email, /^An application was connected to your Runifold account$/, [code, verifier]);
    // The client's name is the client's to choose: a line break in it forges no line of the notice.
    expect(connected).toContain("Application: Notice test client By: someone else (redirects to 127.0.0.1:7777)");
    expect(connected.match(/^By: /gm)).toHaveLength(1);
    expect((await notices(op.id)).map((row) => row.change)).toEqual(["api_key_created", "oauth_client_authorized"]);
  });

  it("with the mail server down: the change still succeeds, and the failure is audited without a secret", async () => {
    process.env.RUNIFOLD_SMTP_URL = `smtp://user:smtp-secret-pw@127.0.0.1:${await closedPort()}`;
    const op = await makeOperator(sql, "operator", [], "down-before-123");
    await changePasswordAction(await signedInContext(sql, op.id), {
      currentPassword: "down-before-123",
      newPassword: "down-after-456",
    });
    expect((await authenticateOperator(sql, { email: op.email, password: "down-after-456", clientAddress: null })).ok).toBe(true);
    expect(await notices(op.id)).toEqual([{ action: "auth.notice.failed", change: "password_changed", error: "ESOCKET" }]);
    const trail = JSON.stringify(await sql`SELECT * FROM audit_events WHERE fields->>'targetOperatorId' = ${op.id}`);
    expect(trail).not.toContain("smtp-secret-pw");
    expect(trail).not.toContain("down-after-456");
  });
});
