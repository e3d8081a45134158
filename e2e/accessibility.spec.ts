import { randomBytes } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { findTenantBySlug } from "../db/queries/tenants";
import { createApiKey } from "../lib/auth";
import { modernClient } from "../tests/helpers/modern-client";
import { createAdmin, screenshot, withStackDatabase } from "./fixtures";
import { seriousViolations } from "./pages/axe-check";
import { LoginPage } from "./pages/login-page";

// axe-core over the console's main pages, in the light and the dark colour scheme (dark mode
// follows prefers-color-scheme, app/globals.css): no serious or critical violation on any of them.
// The pages show real data: a task waiting for input gives the task detail and an inbox form.
test.describe.configure({ mode: "serial" });

let page: Page;
let admin: { email: string; password: string };
let waitingTaskId: string;

test.beforeAll(async ({ browser }) => {
  admin = await createAdmin();
  const run = randomBytes(3).toString("hex");
  const token = await withStackDatabase(async (sql) => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    if (!acme) throw new Error("the e2e stack has no demo tenant (tenant-acme)");
    return (await createApiKey(sql, { tenantId: acme.id, name: `e2e-a11y-${run}` })).token;
  });
  const mcp = modernClient(new URL("/api/mcp", test.info().project.use.baseURL).toString(), { token });
  const created = await mcp.result("tools/call", {
    name: "approve_expense",
    arguments: { expense_id: `A11Y-${run}`, amount: 12.5, description: "axe check" },
  });
  waitingTaskId = created.taskId;
  await mcp.waitFor(waitingTaskId, ["input_required"], 30_000);
  // Pages from an explicit context: @axe-core/playwright refuses a page from browser.newPage().
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
test.afterAll(async () => {
  await page.context().close();
});

const consolePages = (): { name: string; path: string; ready: (p: Page) => Promise<void> }[] => [
  { name: "overview", path: "/overview", ready: (p) => expect(p.getByRole("heading", { name: "Overview" })).toBeVisible() },
  { name: "tasks", path: "/tasks", ready: (p) => expect(p.locator(`tr[data-task-id="${waitingTaskId}"]`)).toBeVisible() },
  {
    name: "task-detail",
    path: `/tasks/${waitingTaskId}`,
    ready: (p) => expect(p.getByTestId("task-status")).toHaveText("waiting on input"),
  },
  { name: "inbox", path: "/inbox", ready: (p) => expect(p.locator(`li[data-task-id="${waitingTaskId}"]`)).toBeVisible() },
  {
    name: "inbox-form",
    path: `/inbox/${waitingTaskId}`,
    ready: (p) => expect(p.getByRole("button", { name: "Submit" })).toBeVisible(),
  },
  {
    // The one-question page a URL-mode elicitation links to (lib/mcp/url-input.ts).
    name: "inbox-question",
    path: `/inbox/${waitingTaskId}/decision`,
    ready: (p) => expect(p.getByRole("button", { name: "Submit" })).toBeVisible(),
  },
  { name: "routes", path: "/routes", ready: (p) => expect(p.getByRole("heading", { name: "Routes", level: 1 })).toBeVisible() },
  { name: "tenants", path: "/tenants", ready: (p) => expect(p.getByRole("link", { name: "tenant-acme" })).toBeVisible() },
  { name: "audit", path: "/audit", ready: (p) => expect(p.locator("tr[data-audit-id]").first()).toBeVisible() },
  {
    name: "account",
    path: "/account/password",
    ready: (p) => expect(p.getByRole("heading", { name: "Account", level: 1 })).toBeVisible(),
  },
  {
    name: "connections",
    path: "/connections",
    ready: (p) => expect(p.getByRole("heading", { name: "Connections", level: 1 })).toBeVisible(),
  },
  {
    // No client parameters: the refusal page, the same shell and palette as the consent screen.
    name: "oauth-authorize",
    path: "/oauth/authorize",
    ready: (p) => expect(p.getByRole("heading", { level: 1 })).toBeVisible(),
  },
];

for (const colorScheme of ["light", "dark"] as const) {
  test(`the login page has no serious accessibility violation (${colorScheme})`, async ({ browser }) => {
    // A context of its own: the shared page is signed in, and /login would send it on.
    const fresh = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme })).newPage();
    try {
      await fresh.goto("/login");
      await expect(fresh.getByRole("button", { name: "Sign in" })).toBeVisible();
      await screenshot(fresh, `a11y-login-${colorScheme}`);
      expect(await seriousViolations(fresh)).toEqual([]);
    } finally {
      await fresh.context().close();
    }
  });

  test(`the console's main pages have no serious accessibility violation (${colorScheme})`, async () => {
    // A dozen pages, each loaded and scanned: about 10 s a page on a loaded 2-core machine. A bound
    // on how long a failure takes, not on speed.
    test.setTimeout(240_000);
    await page.emulateMedia({ colorScheme });
    if (colorScheme === "light") await new LoginPage(page).signIn(admin.email, admin.password);
    // The emulation is what axe's contrast check sees: the page really is in this scheme.
    expect(await page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)).toBe(colorScheme === "dark");
    const found: Record<string, unknown> = {};
    for (const target of consolePages()) {
      await page.goto(target.path);
      await target.ready(page);
      await screenshot(page, `a11y-${target.name}-${colorScheme}`);
      const violations = await seriousViolations(page);
      if (violations.length > 0) found[target.name] = violations;
    }
    expect(found).toEqual({});
  });
}
