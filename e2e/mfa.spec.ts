import { createHash, randomBytes } from "node:crypto";
import { expect, type Page, type Request, test } from "@playwright/test";
import { generate } from "otplib";
import { createAdmin, withStackDatabase } from "./fixtures";
import { type CallbackServer, startCallbackServer } from "./oauth/loopback-servers";
import { seriousViolations } from "./pages/axe-check";

// Issue 33 (ASVS 2.8): two-factor sign-in with JavaScript off, as a person whose page has not run
// its scripts yet. Enrolment on Account → Two-factor authentication, then a sign-in that asks for
// the code after the password; the code comes from otplib and the secret the page showed.
test.use({ javaScriptEnabled: false });

async function signInWithPassword(page: Page, who: { email: string; password: string }) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** A code of the next 30-second step: the enrolment spent the current one, and a code is good once. */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

test("enrol from the account page and sign in with a TOTP code, without scripts", async ({ page }) => {
  const admin = await createAdmin();
  const requests: Request[] = [];
  page.on("request", (request) => requests.push(request));

  await signInWithPassword(page, admin);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await page.goto("/account/mfa");
  await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
  const secret = (await page.getByTestId("mfa-secret").textContent())?.trim() ?? "";
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await expect(page.getByTestId("mfa-uri")).toContainText("otpauth://totp/Runifold:");
  await page.getByLabel("Code from the app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Turn on" }).click();
  await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
  await expect(page.getByText(/Two-factor authentication is on \(since/)).toBeVisible();
  const stored = await withStackDatabase(
    async (sql) =>
      (await sql<{ mfa_secret_sealed: string }[]>`SELECT mfa_secret_sealed FROM operators WHERE email = ${admin.email}`)[0]
        ?.mfa_secret_sealed,
  );
  expect(stored).toMatch(/^v1\./);
  expect(stored).not.toContain(secret);

  // A new sign-in: the password alone stops at the second step, and the console sends it back there.
  await page.context().clearCookies();
  await signInWithPassword(page, admin);
  await expect(page).toHaveURL(/\/login\/mfa/);
  await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
  await page.goto("/overview");
  await expect(page).toHaveURL(/\/login\/mfa/);

  await page.getByRole("textbox", { name: "Code", exact: true }).fill("000000");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByRole("alert")).toContainText("That code is not right");
  await page.getByRole("textbox", { name: "Code", exact: true }).fill(await nextCode(secret));
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();

  // Every step was a POST and no secret or code went into a URL.
  for (const request of requests) {
    expect(request.url()).not.toContain(admin.password);
    expect(request.url()).not.toMatch(/[?&]code=/);
  }
  const steps = requests.filter((r) => new URL(r.url()).pathname === "/login/mfa" && r.method() === "POST");
  expect(steps).toHaveLength(2);
});

/** Turns two-factor on for the signed-in operator through the account page; returns the secret. */
async function enrolThroughPage(page: Page): Promise<string> {
  await page.goto("/account/mfa");
  await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
  const secret = (await page.getByTestId("mfa-secret").textContent())?.trim() ?? "";
  await page.getByLabel("Code from the app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Turn on" }).click();
  await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
  return secret;
}

test("a sign-in from an OAuth consent link asks for the code, then comes back to the consent page, without scripts", async ({
  page,
}) => {
  const admin = await createAdmin();
  await signInWithPassword(page, admin);
  const secret = await enrolThroughPage(page);
  await page.context().clearCookies();

  const callbacks: CallbackServer = await startCallbackServer();
  try {
    const registered = (await (
      await fetch(new URL("/api/oauth/register", process.env.BASE_URL), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "MFA consent client", redirect_uris: [callbacks.redirectUrl] }),
      })
    ).json()) as { client_id: string };
    const authorize = new URL("/oauth/authorize", process.env.BASE_URL);
    authorize.search = new URLSearchParams({
      response_type: "code",
      client_id: registered.client_id,
      redirect_uri: callbacks.redirectUrl,
      code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
      code_challenge_method: "S256",
      state: "mfa-state",
    }).toString();
    await page.goto(authorize.toString());
    await expect(page).toHaveURL(/\/login\?/);
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/login\/mfa\?callbackUrl=%2Foauth%2Fauthorize/);
    await page.getByRole("textbox", { name: "Code", exact: true }).fill(await nextCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    const form = page.getByRole("form", { name: "Authorize client" });
    await expect(form).toBeVisible();
    await form.getByRole("radio", { name: /^tenant-acme\b/ }).check();
    const arrived = callbacks.nextCallback();
    await form.getByRole("button", { name: "Approve" }).click();
    const query = await arrived;
    expect(query.get("state")).toBe("mfa-state");
    expect(query.get("code")).toEqual(expect.any(String));
  } finally {
    await callbacks.close();
  }
});

test("minting a key in a session older than 10 minutes asks to confirm it is you first, without scripts", async ({ page }) => {
  const admin = await createAdmin();
  await signInWithPassword(page, admin);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  // The session last proved who it is 11 minutes ago (as after a long coffee break).
  await withStackDatabase(
    (sql) => sql`UPDATE operator_sessions s SET authenticated_at = now() - interval '11 minutes'
                 FROM operators o WHERE o.id = s.operator_id AND o.email = ${admin.email}`,
  );
  await page.goto("/tenants/tenant-acme");
  const form = page.getByRole("form", { name: "Create API key" });
  await form.getByLabel("Key name").fill("after-coffee");
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "This needs a recent sign-in" })).toContainText("/account/confirm");

  await page.goto("/account/confirm?callbackUrl=%2Ftenants%2Ftenant-acme");
  await page.getByLabel("Password or authenticator code").fill("not-the-password");
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("alert")).toHaveText("That is not your password or a current code.");
  await page.getByLabel("Password or authenticator code").fill(admin.password);
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page).toHaveURL(/\/tenants\/tenant-acme$/);

  const again = page.getByRole("form", { name: "Create API key" });
  await again.getByLabel("Key name").fill("after-coffee");
  await again.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-token")).toHaveText(/^rf_/);
});

test.describe("with scripts", () => {
  test.use({ javaScriptEnabled: true });

  test("the same enrolment and sign-in once the page's scripts run, and a recovery code instead of the code", async ({
    page,
  }) => {
    const admin = await createAdmin();
    await signInWithPassword(page, admin);
    await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
    await page.goto("/account/mfa");
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const secret = (await page.getByTestId("mfa-secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // The new pages meet the console's accessibility bar (no serious axe finding), as e2e/accessibility does.
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel("Code from the app").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
    const codes = await page.getByTestId("recovery-codes").getByRole("listitem").allTextContents();
    await expect(page.getByText(/Two-factor authentication is on \(since/)).toBeVisible();

    await page.context().clearCookies();
    await signInWithPassword(page, admin);
    await expect(page).toHaveURL(/\/login\/mfa/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("textbox", { name: "Code", exact: true }).fill(codes[0] as string);
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
    await page.goto("/account/mfa");
    await expect(page.getByText("9 recovery codes left")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto("/account/confirm");
    await expect(page.getByRole("heading", { name: "Confirm it is you" })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
