import { randomBytes } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { modernClient } from "../tests/helpers/modern-client";
import { createAdmin, screenshot } from "./fixtures";
import { InboxPage } from "./pages/inbox-page";
import { LoginPage } from "./pages/login-page";
import { RoutesPage } from "./pages/routes-page";
import { TaskDetailPage } from "./pages/task-detail-page";
import { TasksPage } from "./pages/tasks-page";
import { TenantsPage } from "./pages/tenants-page";

// One operator journey against the real app, worker and Postgres, in order: later steps use the
// tenant, key and routes the earlier ones created.
test.describe.configure({ mode: "serial" });

const tenant = `e2e-${randomBytes(3).toString("hex")}`;
let admin: { email: string; password: string };
let token: string;
let page: Page;
const mcp = () => modernClient(new URL("/api/mcp", test.info().project.use.baseURL).toString(), { token });

test.beforeAll(async ({ browser }) => {
  admin = await createAdmin();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
test.afterAll(async () => {
  await page.close();
});

test("sign in, create a tenant, a key and routes", async () => {
  await page.goto("/login");
  await screenshot(page, "login");
  await new LoginPage(page).signIn(admin.email, admin.password);

  const tenants = new TenantsPage(page);
  await tenants.createTenant(tenant, "E2E tenant");
  await screenshot(page, "tenants");
  await tenants.open(tenant);
  token = await tenants.createKey("e2e-client");
  expect(token).toMatch(/^rf_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  await screenshot(page, "tenant-keys");

  const routes = new RoutesPage(page);
  await routes.goto();
  await routes.saveRoute({ tenant, tool: "approve_expense", workflow: "approve-expense", version: 1 });
  await routes.saveRoute({ tenant, tool: "durable_report", workflow: "generate-report", version: 1 });
  await expect(routes.card(tenant, "durable_report")).toContainText(/served by \d+ online worker/);
  await screenshot(page, "routes");
});

test("an MCP task appears live, is answered in the inbox, and completes with the decision", async () => {
  const tasks = new TasksPage(page);
  await tasks.goto();
  const created = await mcp().result("tools/call", {
    name: "approve_expense",
    arguments: { expense_id: "E-42", amount: 99.5, description: "team lunch" },
  });
  // No reload: the list's own polling brings the new task in.
  await expect(tasks.row(created.taskId)).toBeVisible({ timeout: 15_000 });
  await expect(tasks.status(created.taskId)).toHaveText("waiting on input", { timeout: 15_000 });
  await screenshot(page, "tasks");

  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(created.taskId);
  await expect(item).toContainText("Approve expense E-42 of 99.50 EUR (team lunch)?");
  await item.getByLabel("Decision").selectOption("approve");
  await item.getByLabel("Comment").fill("ok from e2e");
  await screenshot(page, "inbox");
  await item.getByRole("button", { name: "Submit" }).click();
  await expect(page.getByText("Answer sent; the task resumes.")).toBeVisible();

  const done = await mcp().waitFor(created.taskId, ["completed", "failed"], 30_000);
  expect(done.status).toBe("completed");
  expect(done.result.structuredContent).toMatchObject({ expenseId: "E-42", decision: "approved", comment: "ok from e2e" });
});

test("cancel a running durable_report from its detail page", async () => {
  const created = await mcp().result("tools/call", { name: "durable_report", arguments: { report_id: "x", settle_ms: 600_000 } });
  const detail = new TaskDetailPage(page);
  await detail.goto(created.taskId);
  await expect(detail.diagnosis).toContainText(/sleeping until|leased by worker|queued/, { timeout: 15_000 });
  await screenshot(page, "task-detail-running");
  await detail.cancel();
  await expect(detail.status).toHaveText("cancelled", { timeout: 10_000 });
  await expect(detail.diagnosis).toHaveText("cancelled: Cancelled by operator");
  await screenshot(page, "task-detail-cancelled");

  const tasks = new TasksPage(page);
  await tasks.goto();
  await expect(tasks.status(created.taskId)).toHaveText("cancelled");
  expect((await mcp().result("tasks/get", { taskId: created.taskId })).status).toBe("cancelled");
});

test("a task routed to a version no worker serves says so", async () => {
  const routes = new RoutesPage(page);
  await routes.goto();
  // No worker publishes generate-report@2, so the console binds it only when told to (lib/admin/routes.ts).
  await routes.reviseVersion(tenant, "durable_report", 2, { allowUnpublished: true });
  await expect(routes.card(tenant, "durable_report")).toContainText("no online worker serves generate-report@2");
  const created = await mcp().result("tools/call", { name: "durable_report", arguments: { report_id: "v2" } });
  const detail = new TaskDetailPage(page);
  await detail.goto(created.taskId);
  // The page polls every 2 s; the timeout only bounds a failure, so it leaves room for a loaded machine.
  await expect(detail.diagnosis).toContainText("no online worker serves generate-report@2", { timeout: 15_000 });
  await screenshot(page, "task-detail-no-worker");

  await page.goto("/overview");
  await expect(page.getByRole("img", { name: /Created: \d+ in the last hour/ })).toBeVisible();
  await screenshot(page, "overview");
  await page.goto("/workers");
  await expect(page.getByText("generate-report@1").first()).toBeVisible();
  await screenshot(page, "workers");
  await page.setViewportSize({ width: 390, height: 844 });
  await new TasksPage(page).goto();
  await expect(page.locator("tr[data-task-id]").first()).toBeVisible();
  await screenshot(page, "tasks-phone");
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("a member operator sees only its tenant, and loses access once disabled", async ({ browser }) => {
  const email = `member-${randomBytes(3).toString("hex")}@runifold.test`;
  const password = randomBytes(12).toString("base64url");
  await page.goto("/tenants");
  const form = page.getByRole("form", { name: "Create operator" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Initial password").fill(password);
  await form.getByRole("button", { name: "Create operator" }).click();
  await expect(page.getByText(email, { exact: true })).toBeVisible();
  await page.goto(`/tenants/${tenant}`);
  const add = page.getByRole("form", { name: "Add member" });
  await add.getByLabel("Operator email").fill(email);
  await add.getByRole("button", { name: "Add" }).click();
  await expect(page.getByRole("button", { name: `Remove ${email}` })).toBeVisible();

  const member = await browser.newPage();
  await new LoginPage(member).signIn(email, password);
  await member.goto(`/tenants/${tenant}`);
  await expect(member.getByRole("heading", { name: tenant, level: 1 })).toBeVisible();
  // Another tenant's page is the same 404 as a tenant that does not exist.
  const foreign = await member.goto("/tenants/tenant-acme");
  const foreignText = await member.locator("main").textContent();
  const absent = await member.goto("/tenants/no-such-tenant-here");
  expect(foreign?.status()).toBe(404);
  expect(absent?.status()).toBe(404);
  expect(foreignText).toContain("This page could not be found.");
  expect(foreignText).toBe(await member.locator("main").textContent());
  const api = await member.request.get("/api/ui/tasks?tenant=00000000-0000-4000-8000-000000000000");
  expect((await api.json()).items).toEqual([]);

  await page.goto("/tenants");
  // Disabling asks first: it ends the operator's sessions, connected clients and API keys (review F7).
  page.once("dialog", (dialog) => {
    expect(dialog.message()).toContain("connected clients and API keys stop working");
    void dialog.accept();
  });
  await page.getByRole("button", { name: `Disable ${email}` }).click();
  await expect(page.getByRole("button", { name: `Enable ${email}` })).toBeVisible();
  // The member's session cookie is still valid, but the next request is refused.
  await member.goto("/tasks");
  await expect(member).toHaveURL(/\/login/);
  expect((await member.request.get("/api/ui/tasks")).status()).toBe(401);
  await member.close();
});
