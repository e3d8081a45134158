import { randomBytes } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { findTenantBySlug } from "../db/queries/tenants";
import { createApiKey } from "../lib/auth";
import { modernClient } from "../tests/helpers/modern-client";
import { createAdmin, screenshot, withStackDatabase } from "./fixtures";
import { InboxPage } from "./pages/inbox-page";
import { LoginPage } from "./pages/login-page";

// Answering an approval from a phone: at 390×844 an operator signs in, opens the inbox, answers an
// approve_expense task in its form, and the task completes. The page itself never scrolls sideways
// (tables may scroll inside their own container), in light and in dark.
test.describe.configure({ mode: "serial" });

const PHONE = { width: 390, height: 844 };
let page: Page;
let token: string;
let admin: { email: string; password: string };
const run = randomBytes(3).toString("hex");
const mcp = () => modernClient(new URL("/api/mcp", test.info().project.use.baseURL).toString(), { token });

/** The document's scrollable width: above the viewport's 390 means the page scrolls sideways. */
const pageScrollWidth = (p: Page) => p.evaluate(() => document.scrollingElement?.scrollWidth ?? Number.POSITIVE_INFINITY);

test.beforeAll(async ({ browser }) => {
  admin = await createAdmin();
  token = await withStackDatabase(async (sql) => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    if (!acme) throw new Error("the e2e stack has no demo tenant (tenant-acme)");
    return (await createApiKey(sql, { tenantId: acme.id, name: `e2e-mobile-${run}` })).token;
  });
  page = await browser.newPage({ viewport: PHONE, isMobile: true, hasTouch: true });
});
test.afterAll(async () => {
  await page.close();
});

for (const colorScheme of ["light", "dark"] as const) {
  test(`answer an approve_expense task from the inbox at 390 px (${colorScheme})`, async () => {
    await page.emulateMedia({ colorScheme });
    if (colorScheme === "light") await new LoginPage(page).signIn(admin.email, admin.password);
    const expenseId = `M-${run}-${colorScheme}`;
    const created = await mcp().result("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: expenseId, amount: 42, description: "taxi from the airport" },
    });
    await mcp().waitFor(created.taskId, ["input_required"], 30_000);

    const inbox = new InboxPage(page);
    await inbox.goto();
    const item = inbox.item(created.taskId);
    await expect(item).toContainText(`Approve expense ${expenseId} of 42.00 EUR (taxi from the airport)?`);
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    // The form's controls fit the phone: nothing is cut off at the right edge.
    const submit = item.getByRole("button", { name: "Submit" });
    const box = await submit.boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(PHONE.width);

    await item.getByLabel("Decision").selectOption("approve");
    await item.getByLabel("Comment").fill(`approved on a phone (${colorScheme})`);
    await screenshot(page, `inbox-phone-${colorScheme}`);
    await submit.tap();
    await expect(item.getByText("Answer sent; the task resumes.")).toBeVisible();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(PHONE.width);

    const done = await mcp().waitFor(created.taskId, ["completed", "failed"], 30_000);
    expect(done.status).toBe("completed");
    expect(done.result.structuredContent).toMatchObject({ expenseId, decision: "approved" });
    await page.goto(`/tasks/${created.taskId}`);
    await expect(page.getByTestId("task-status")).toHaveText("completed");
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, `task-completed-phone-${colorScheme}`);
  });
}

test("the console's main pages do not scroll sideways at 390 px", async () => {
  await page.emulateMedia({ colorScheme: "light" });
  const wide: Record<string, number> = {};
  for (const path of [
    "/overview",
    "/tasks",
    "/inbox",
    "/routes",
    "/tenants",
    "/tenants/tenant-acme",
    "/audit",
    "/workers",
    "/connections",
    "/account/password",
  ]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const width = await pageScrollWidth(page);
    if (width > PHONE.width) wide[path] = width;
  }
  await screenshot(page, "account-phone");
  expect(wide).toEqual({});
});
