import { createHash, randomBytes } from "node:crypto";
import { expect, type Page, type Request, test } from "@playwright/test";
import { createApiKey, verifyPassword } from "../lib/auth";
import { modernClient } from "../tests/helpers/modern-client";
import { createAdmin, withStackDatabase } from "./fixtures";
import { type CallbackServer, startCallbackServer } from "./oauth/loopback-servers";

// Issue 33: a person who submits before the page's scripts have run (slow network, fast typing)
// must neither leak a secret into a URL nor lose what they did. With JavaScript off, every form
// that carries a secret or changes state must still be a POST that works: sign-in, the OAuth
// consent, the password change and the inbox's answer.
test.use({ javaScriptEnabled: false });

const TENANT = "tenant-acme";

/** Every request the page makes, to show no URL carried the secret and which requests were POSTs. */
function recordRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on("request", (request) => seen.push(request));
  return seen;
}

async function signInWithoutScripts(page: Page, who: { email: string; password: string }) {
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("sign-in without scripts posts, signs in, and never puts the password in a URL", async ({ page }) => {
  const admin = await createAdmin();
  const requests = recordRequests(page);
  await page.goto("/login");
  // A wrong password first: the failure comes back to the login page, in words.
  await signInWithoutScripts(page, { email: admin.email, password: "not-the-password" });
  await expect(page.getByRole("alert")).toHaveText("Invalid email or password.");
  await signInWithoutScripts(page, admin);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();

  for (const request of requests) {
    expect(request.url()).not.toContain(encodeURIComponent(admin.password));
    expect(request.url()).not.toContain(admin.password);
    expect(request.url()).not.toMatch(/[?&]password=/);
  }
  const signIns = requests.filter((request) => new URL(request.url()).pathname === "/api/auth/callback/credentials");
  expect(signIns.map((request) => request.method())).toEqual(["POST", "POST"]);
});

test("a sign-in from the consent link without scripts comes back to the consent page, and Approve posts", async ({ page }) => {
  const admin = await createAdmin();
  const callbacks: CallbackServer = await startCallbackServer();
  try {
    const registered = (await (
      await fetch(new URL("/api/oauth/register", process.env.BASE_URL), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "No-script client", redirect_uris: [callbacks.redirectUrl] }),
      })
    ).json()) as { client_id: string };
    const verifier = randomBytes(32).toString("base64url");
    const authorize = new URL("/oauth/authorize", process.env.BASE_URL);
    authorize.search = new URLSearchParams({
      response_type: "code",
      client_id: registered.client_id,
      redirect_uri: callbacks.redirectUrl,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "no-script-state",
    }).toString();

    const requests = recordRequests(page);
    await page.goto(authorize.toString());
    await expect(page).toHaveURL(/\/login\?/);
    await signInWithoutScripts(page, admin);
    const form = page.getByRole("form", { name: "Authorize client" });
    await expect(form).toBeVisible();
    await form.getByRole("radio", { name: new RegExp(`^${TENANT}\\b`) }).check();
    const arrived = callbacks.nextCallback();
    await form.getByRole("button", { name: "Approve" }).click();
    const query = await arrived;
    expect(query.get("state")).toBe("no-script-state");
    expect(query.get("code")).toEqual(expect.any(String));
    const decisions = requests.filter(
      (request) => new URL(request.url()).pathname === "/oauth/authorize" && request.method() === "POST",
    );
    expect(decisions).toHaveLength(1);
  } finally {
    await callbacks.close();
  }
});

test("the password change works without scripts", async ({ page }) => {
  const admin = await createAdmin();
  await page.goto("/login");
  await signInWithoutScripts(page, admin);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  const requests = recordRequests(page);
  await page.goto("/account/password");
  const newPassword = `new-${randomBytes(12).toString("base64url")}`;
  await page.getByLabel("Current password").fill(admin.password);
  await page.getByLabel("New password").fill(newPassword);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Password changed" })).toBeVisible();

  const hash = await withStackDatabase(
    async (sql) =>
      (await sql<{ password_hash: string }[]>`SELECT password_hash FROM operators WHERE email = ${admin.email}`)[0]
        ?.password_hash,
  );
  expect(await verifyPassword(newPassword, hash as string)).toBe(true);
  for (const request of requests) expect(request.url()).not.toContain(newPassword);
  expect(requests.some((request) => new URL(request.url()).pathname === "/account/password" && request.method() === "POST")).toBe(
    true,
  );
});

test("an inbox answer is sent without scripts and the task resumes with it", async ({ page }) => {
  const admin = await createAdmin();
  const key = await withStackDatabase(async (sql) => {
    const [tenant] = await sql<{ id: string }[]>`SELECT id FROM tenants WHERE slug = ${TENANT}`;
    return createApiKey(sql, { tenantId: tenant?.id as string, name: "no-script-inbox" });
  });
  const mcp = modernClient(new URL("/api/mcp", process.env.BASE_URL).toString(), { token: key.token });
  const created = await mcp.result("tools/call", {
    name: "approve_expense",
    arguments: { expense_id: "NS-1", amount: 12.5, description: "no scripts" },
  });
  await mcp.waitFor(created.taskId, ["input_required"], 30_000);

  await page.goto("/login");
  await signInWithoutScripts(page, admin);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await page.goto(`/inbox/${created.taskId}`);
  const item = page.locator(`li[data-task-id="${created.taskId}"]`);
  await item.getByLabel("Decision").selectOption("approve");
  await item.getByLabel("Comment").fill("answered without scripts");
  await item.getByRole("button", { name: "Submit" }).click();

  const done = await mcp.waitFor(created.taskId, ["completed", "failed"], 30_000);
  expect(done.status).toBe("completed");
  expect(done.result.structuredContent).toMatchObject({
    expenseId: "NS-1",
    decision: "approved",
    comment: "answered without scripts",
  });
});

test("a signal is sent from a task's page without scripts, and its history names the sender", async ({ page }) => {
  const admin = await createAdmin();
  const key = await withStackDatabase(async (sql) => {
    const [tenant] = await sql<{ id: string }[]>`SELECT id FROM tenants WHERE slug = ${TENANT}`;
    return createApiKey(sql, { tenantId: tenant?.id as string, name: "no-script-signal" });
  });
  const mcp = modernClient(new URL("/api/mcp", process.env.BASE_URL).toString(), { token: key.token });
  const created = await mcp.result("tools/call", {
    name: "approve_expense",
    arguments: { expense_id: "NS-2", amount: 3, description: "signal without scripts" },
  });
  await mcp.waitFor(created.taskId, ["input_required"], 30_000);

  await page.goto("/login");
  await signInWithoutScripts(page, admin);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await page.goto(`/tasks/${created.taskId}`);
  const form = page.getByRole("form", { name: "Send a signal" });
  await form.getByLabel("Name").fill("nudge");
  await form.getByLabel("Payload (JSON, optional)").fill('{"from": "no scripts"}');
  await form.getByRole("button", { name: "Send signal" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Signal “nudge” sent." })).toBeVisible();

  const stored = await withStackDatabase(
    (sql) => sql<{ name: string; payload: unknown }[]>`SELECT name, payload FROM run_signals WHERE run_id = ${created.taskId}`,
  );
  expect(stored).toEqual([{ name: "nudge", payload: { from: "no scripts" } }]);
  await page.goto(`/tasks/${created.taskId}`);
  await expect(page.getByText(/signal `nudge` sent by /)).toBeVisible();
});
