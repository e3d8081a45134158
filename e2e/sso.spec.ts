import { randomBytes } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import postgres from "postgres";
import { createOperator, endAllOperatorSessions, setOperatorDisabled } from "../db/queries/operators";
import { hashPassword } from "../lib/auth";
import { killAllNow } from "../scripts/lib/children";
import { startTestStack, type TestStack } from "../scripts/lib/test-stack";
import { screenshot } from "./fixtures";
import { SsoLoginPage, TestIdpPages } from "./pages/sso-pages";
import { startTestIdp, type TestIdp } from "./sso/test-idp";

/**
 * Operator single sign-on, end to end: Chromium, the real app (`next start` on its own stack) and a
 * real OpenID provider on loopback (e2e/sso/test-idp.ts). The stack is this file's own, not the
 * global one: it needs the provider's issuer in its env before it starts, and the other specs'
 * page objects find the password form's button by the name "Sign in", which "Sign in with …"
 * would also match.
 */
test.describe.configure({ mode: "serial" });

const IDP_NAME = "Test IdP";
const JIT_TENANT = "tenant-acme";
const ADMIN_GROUP = "runifold-admins";
const tag = randomBytes(3).toString("hex");

let idp: TestIdp;
let stack: TestStack | undefined;
let sql: postgres.Sql;

/** The provider first (the app's env names its issuer), then the app, then the provider's client for it. */
async function startSsoStack(label: string, env: Record<string, string> = {}) {
  const provider = await startTestIdp();
  const started = await startTestStack({
    projectRoot: process.cwd(),
    label,
    workers: 0,
    env: {
      RUNIFOLD_OIDC_ISSUER: provider.issuer,
      RUNIFOLD_OIDC_CLIENT_ID: provider.clientId,
      RUNIFOLD_OIDC_CLIENT_SECRET: provider.clientSecret,
      RUNIFOLD_OIDC_NAME: IDP_NAME,
      ...env,
    },
    log: (line) => process.stdout.write(`[${label} stack] ${line}\n`),
  }).catch(async (error) => {
    await provider.close();
    throw error;
  });
  provider.configure(`${started.origin}/api/auth/callback/oidc`);
  return { provider, started, db: postgres(started.databaseUrl, { max: 2, onnotice: () => {} }) };
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  process.on("exit", killAllNow); // a worker that dies never leaves this stack behind
  const up = await startSsoStack("sso", {
    RUNIFOLD_OIDC_SCOPES: "openid email profile groups",
    RUNIFOLD_OIDC_JIT_TENANT: JIT_TENANT,
    RUNIFOLD_OIDC_GROUPS_CLAIM: "groups",
    RUNIFOLD_OIDC_ADMIN_GROUP: ADMIN_GROUP,
  });
  ({ provider: idp, started: stack, db: sql } = up);
});

test.afterAll(async () => {
  await sql?.end();
  await stack?.stop();
  await idp?.close();
});

const origin = () => stack?.origin ?? "";
const login = (page: Page) => new SsoLoginPage(page, origin(), IDP_NAME);
const overview = (page: Page) => page.getByRole("heading", { name: "Overview" });

/** Clicks "Sign in with Test IdP" and gets through the provider's login and consent pages as `person`. */
async function signInWithSso(page: Page, person: string, shots?: string) {
  const loginPage = login(page);
  await loginPage.goto();
  if (shots) await screenshot(page, `${shots}-login`);
  await loginPage.ssoButton.click();
  await new TestIdpPages(page, idp.issuer).signInAs(person);
}

async function operatorByEmail(email: string) {
  const rows = await sql<{ id: string; role: string; tenants: string[] }[]>`
    SELECT o.id, o.role, coalesce(array_agg(t.slug) FILTER (WHERE t.slug IS NOT NULL), '{}') AS tenants
    FROM operators o LEFT JOIN operator_tenants m ON m.operator_id = o.id LEFT JOIN tenants t ON t.id = m.tenant_id
    WHERE o.email = ${email} GROUP BY o.id`;
  return rows[0];
}

async function auditActions(operatorId: string): Promise<string[]> {
  const rows = await sql<{ action: string }[]>`
    SELECT action FROM audit_events WHERE operator_id = ${operatorId} OR fields->>'operatorId' = ${operatorId} ORDER BY id`;
  return rows.map((row) => row.action);
}

test("an existing operator signs in with SSO, lands on the console, and 'sign out everywhere' ends that session", async ({
  page,
}) => {
  const email = `sso-existing-${tag}@runifold.test`;
  const operator = await createOperator(sql, {
    email,
    passwordHash: await hashPassword(randomBytes(16).toString("hex")),
    role: "admin",
  });
  idp.people.set(`existing-${tag}`, { email: email.toUpperCase(), email_verified: true, name: "Existing Person" });

  await signInWithSso(page, `existing-${tag}`, "sso");
  await expect(overview(page)).toBeVisible();
  expect(new URL(page.url()).pathname).toBe("/overview");
  await screenshot(page, "sso-overview");
  expect(await auditActions(operator.id)).toContain("operator.sso_sign_in");

  // The SSO session is an ordinary operator session: bumping the version refuses it on the next request.
  await endAllOperatorSessions(sql, operator.id);
  await page.goto(`${origin()}/tenants`);
  await expect(page).toHaveURL(/\/login/);
});

test("a person in the admin group is created just in time as an admin, with membership in the JIT tenant", async ({ page }) => {
  const email = `sso-jit-admin-${tag}@runifold.test`;
  idp.people.set(`jit-admin-${tag}`, { email, email_verified: true, name: "New Admin", groups: ["staff", ADMIN_GROUP] });

  await signInWithSso(page, `jit-admin-${tag}`);
  await expect(overview(page)).toBeVisible();
  const created = await operatorByEmail(email);
  expect(created).toMatchObject({ role: "admin", tenants: [JIT_TENANT] });
  expect(await auditActions(created?.id ?? "")).toEqual(["operator.jit_created", "operator.sso_sign_in"]);
  // An admin page answers: the session carries the new operator.
  await page.goto(`${origin()}/tenants`);
  await expect(page.getByRole("heading", { name: "Tenants", level: 1 })).toBeVisible();
});

test("a person outside the admin group is created just in time as a member of the JIT tenant", async ({ page }) => {
  const email = `sso-jit-member-${tag}@runifold.test`;
  idp.people.set(`jit-member-${tag}`, { email, email_verified: true, groups: ["staff"] });

  await signInWithSso(page, `jit-member-${tag}`);
  await expect(overview(page)).toBeVisible();
  expect(await operatorByEmail(email)).toMatchObject({ role: "operator", tenants: [JIT_TENANT] });
});

test("a person whose email is not verified is refused, with the reason on /login, and nothing is created", async ({ page }) => {
  const email = `sso-unverified-${tag}@runifold.test`;
  idp.people.set(`unverified-${tag}`, { email, email_verified: false, groups: [ADMIN_GROUP] });

  await signInWithSso(page, `unverified-${tag}`);
  await expect(page).toHaveURL(/\/login\?error=sso_email_unverified/);
  await expect(login(page).alert).toHaveText(
    `${IDP_NAME} has not verified your email address. Verify it there, then sign in again.`,
  );
  await screenshot(page, "sso-refused-unverified");
  expect(await operatorByEmail(email)).toBeUndefined();
  const refused =
    await sql`SELECT fields FROM audit_events WHERE action = 'operator.sso_refused' AND fields->>'email' = ${email}`;
  expect(refused[0]?.fields).toMatchObject({ reason: "email_unverified", subject: `unverified-${tag}` });
});

test("a disabled operator is refused by SSO, with the reason on /login", async ({ page }) => {
  const email = `sso-disabled-${tag}@runifold.test`;
  const operator = await createOperator(sql, { email, passwordHash: await hashPassword("irrelevant-pass"), role: "admin" });
  await setOperatorDisabled(sql, { operatorId: operator.id, disabled: true });
  idp.people.set(`disabled-${tag}`, { email, email_verified: true });

  await signInWithSso(page, `disabled-${tag}`);
  await expect(page).toHaveURL(/\/login\?error=sso_disabled/);
  await expect(login(page).alert).toHaveText("This operator account is disabled. Ask an admin to enable it.");
  // No session was made: the console still sends this browser to the login page.
  await page.goto(`${origin()}/overview`);
  await expect(page).toHaveURL(/\/login/);
});

test("password sign-in still works next to the SSO button", async ({ page }) => {
  const email = `sso-password-${tag}@runifold.test`;
  const password = randomBytes(12).toString("base64url");
  await createOperator(sql, { email, passwordHash: await hashPassword(password), role: "operator" });

  const loginPage = login(page);
  await loginPage.goto();
  await expect(loginPage.ssoButton).toBeVisible();
  await loginPage.signInWithPassword(email, password);
  await expect(overview(page)).toBeVisible();
});

test.describe("with RUNIFOLD_PASSWORD_SIGNIN=off", () => {
  let off: Awaited<ReturnType<typeof startSsoStack>>;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    off = await startSsoStack("ssooff", { RUNIFOLD_PASSWORD_SIGNIN: "off" });
  });
  test.afterAll(async () => {
    await off?.db.end();
    await off?.started.stop();
    await off?.provider.close();
  });

  test("the login page offers only SSO, and a scripted password sign-in gets no session", async ({ page }) => {
    const email = `sso-off-${tag}@runifold.test`;
    const password = randomBytes(12).toString("base64url");
    await createOperator(off.db, { email, passwordHash: await hashPassword(password), role: "admin" });
    const loginPage = new SsoLoginPage(page, off.started.origin, IDP_NAME);
    await loginPage.goto();
    await expect(loginPage.ssoButton).toBeVisible();
    await expect(page.getByLabel("Password")).toHaveCount(0);
    await expect(loginPage.passwordButton).toHaveCount(0);
    await screenshot(page, "sso-only-login");

    // The right password, posted the way the form would: the credentials provider is gone.
    const { csrfToken } = (await (await page.request.get(`${off.started.origin}/api/auth/csrf`)).json()) as { csrfToken: string };
    const response = await page.request.post(`${off.started.origin}/api/auth/callback/credentials`, {
      form: { csrfToken, email, password, json: "true" },
      maxRedirects: 0,
    });
    // next-auth answers 400 for a provider it does not have (with the provider: 200 and a session cookie).
    expect(response.status()).toBe(400);
    const cookies = await page.context().cookies(off.started.origin);
    expect(cookies.map((cookie) => cookie.name)).not.toContain("next-auth.session-token");
    await page.goto(`${off.started.origin}/overview`);
    await expect(page).toHaveURL(/\/login/);
  });
});
