import { createHash } from "node:crypto";
import { expect, type Request, test } from "@playwright/test";
import { createAdmin, withStackDatabase } from "./fixtures";

// Issue 34: Account → API tokens works before the page's scripts run — creating a token is a POST whose
// answer shows the secret once (never in a URL), revoking is a POST too, and the admin API takes the
// token until it is revoked. The store keeps only the secret's SHA-256.
test.use({ javaScriptEnabled: false });

async function adminApi(token: string): Promise<number> {
  const response = await fetch(new URL("/api/v1/admin/tenants", process.env.BASE_URL), {
    headers: { authorization: `Bearer ${token}` },
  });
  return response.status;
}

test("creates a token without scripts, shows it once, and revoking it ends its access", async ({ page }) => {
  const admin = await createAdmin();
  const requests: Request[] = [];
  page.on("request", (request) => requests.push(request));
  await page.goto("/login");
  await page.getByLabel("Email").fill(admin.email);
  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();

  await page.goto("/account/tokens");
  await expect(page.getByRole("heading", { name: "API tokens" })).toBeVisible();
  const create = page.getByRole("form", { name: "Create API token" });
  await create.getByLabel("Token name").fill("e2e-laptop");
  await create.getByRole("button", { name: "Create token" }).click();
  const shown = page.getByTestId("new-operator-token");
  await expect(shown).toHaveText(/^rfo_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  const token = (await shown.textContent()) as string;
  for (const request of requests) expect(request.url()).not.toContain(token.slice(21));
  expect(await adminApi(token)).toBe(200);

  // The secret is base64url, which may hold "_" too: the id is the 16 hex digits after rfo_.
  const [, id, secret] = /^rfo_([0-9a-f]{16})_(.+)$/.exec(token) as unknown as [string, string, string];
  const [row] = await withStackDatabase((sql) => sql`SELECT secret_sha256, scopes FROM operator_api_tokens WHERE id = ${id}`);
  expect(row?.secret_sha256).toBe(createHash("sha256").update(secret).digest("hex"));
  expect(row?.scopes).toEqual(["admin:read", "approvals:decide"]);

  // The list shows the token by id; a reload does not show the secret again.
  await page.goto("/account/tokens");
  await expect(page.getByText(`rfo_${id}_…`)).toBeVisible();
  await expect(page.getByTestId("new-operator-token")).toHaveCount(0);
  await page.getByRole("form", { name: "Revoke token e2e-laptop" }).getByRole("button", { name: "Revoke" }).click();
  await page.goto("/account/tokens");
  await expect(page.getByRole("list", { name: "API tokens" }).getByText("revoked")).toBeVisible();
  expect(await adminApi(token)).toBe(401);
  const posts = requests.filter(
    (request) => new URL(request.url()).pathname === "/account/tokens" && request.method() === "POST",
  );
  expect(posts).toHaveLength(2);
});
