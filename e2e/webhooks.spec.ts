import { randomBytes } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { createTenant } from "../db/queries/tenants";
import { waitFor } from "../tests/helpers/wait-for";
import { startWebhookReceiver } from "../tests/helpers/webhook-receiver";
import { createAdmin, screenshot, withStackDatabase } from "./fixtures";
import { LoginPage } from "./pages/login-page";
import { WebhooksPage } from "./pages/webhooks-page";

// A webhook subscription made in the console, against the real app and worker: the secret is shown
// once, "Send test" reaches a receiver started here (loopback: the stack runs with
// RUNIFOLD_WEBHOOK_ALLOW_PRIVATE=true) correctly signed, and the delivery appears in the log.
test.describe.configure({ mode: "serial" });

const tenant = `e2e-hooks-${randomBytes(3).toString("hex")}`;
let page: Page;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

test.beforeAll(async ({ browser }) => {
  const admin = await createAdmin();
  await withStackDatabase((sql) => createTenant(sql, { slug: tenant, name: "E2E webhooks" }));
  receiver = await startWebhookReceiver();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await new LoginPage(page).signIn(admin.email, admin.password);
});
test.afterAll(async () => {
  await page.close();
  await receiver.close();
});

test("create a subscription, send a test, and see the signed delivery in the log", async () => {
  const webhooks = new WebhooksPage(page);
  await webhooks.goto();
  await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
  await expect(page.getByRole("link", { name: "Webhooks" })).toHaveAttribute("aria-current", "page");
  const url = receiver.url("/e2e");
  const secret = await webhooks.create({ tenant, url, events: ["task.input_required", "task.failed"] });
  expect(secret).toMatch(/^whsec_/);
  const section = webhooks.subscription(url);
  await expect(section).toContainText("task.input_required, task.failed");
  await expect(section).toContainText("No deliveries yet.");

  await section.getByRole("button", { name: "Send test" }).click();
  const [hook] = await waitFor(
    () => receiver.at("/e2e"),
    (hooks) => hooks.length === 1,
    { describe: "the test delivery at the receiver", timeoutMs: 30_000 },
  );
  expect(new Webhook(secret).verify(hook?.body as string, hook?.headers as Record<string, string>)).toMatchObject({
    type: "webhook.test",
    tenant,
  });
  const row = webhooks.deliveries(url).first();
  await expect(row).toHaveAttribute("data-status", "delivered", { timeout: 20_000 });
  await expect(row).toContainText("webhook.test");
  await expect(row).toContainText("200");
  await screenshot(page, "webhooks");
});
