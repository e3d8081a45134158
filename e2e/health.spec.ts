import { expect, test } from "@playwright/test";

test("the home page renders, styled, and links to the health endpoint", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1, name: "Runifold" })).toBeVisible();
  const link = page.getByRole("link", { name: "View /api/health" });
  await expect(link).toHaveAttribute("href", "/api/health");
  // Tailwind is applied: the link has a filled (non-transparent) background.
  const background = await link.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(background).not.toBe("rgba(0, 0, 0, 0)");
  await page.screenshot({ path: "test-results/e2e-home.png", fullPage: true });
});

test("every page names its icon, and the icon is served (no 404 for a favicon in the console)", async ({ page, request }) => {
  await page.goto("/login");
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toMatch(/^\/icon\.svg/);
  const icon = await request.get(href as string);
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
});

test("GET /api/health reports a ready deployment with a worker online", async ({ page, request }) => {
  await expect
    .poll(async () => (await (await request.get("/api/health")).json()).workers?.online, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(1);
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ database: "ok", migrations: "applied", ok: true });

  await page.goto("/api/health");
  await expect(page.locator("body")).toContainText('"database":"ok"');
  await page.screenshot({ path: "test-results/e2e-health.png" });
});
