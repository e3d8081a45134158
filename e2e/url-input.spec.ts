import { randomBytes, randomUUID } from "node:crypto";
import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { ElicitationCompleteNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { addOperatorTenant, createOperator } from "../db/queries/operators";
import { findTenantBySlug } from "../db/queries/tenants";
import { createApiKey, hashPassword } from "../lib/auth";
import { connectLegacyClient } from "../tests/helpers/legacy-client";
import { screenshot, withStackDatabase } from "./fixtures";

// URL-mode input (issue 29, DESIGN §8): an MCP client that declared only `elicitation.url` is sent
// the question's console page, `<public URL>/inbox/<task>/<key>`. A person opens it in the browser,
// signs in, answers, and the MCP call that was waiting completes with that answer. Another
// tenant's operator finds nothing there, exactly as at an unknown address.

type Asked = { url: string; elicitationId: string; message: string };

/** The SDK v1 client, declaring URL-mode elicitation only, calling approve_expense without tasks. */
async function urlOnlyCall(expenseId: string) {
  const key = await withStackDatabase(async (sql) => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    if (!acme) throw new Error("the e2e stack has no demo tenant (tenant-acme)");
    return createApiKey(sql, { tenantId: acme.id, name: `e2e-url-input-${expenseId}` });
  });
  let resolveAsked: (asked: Asked) => void = () => {};
  const asked = new Promise<Asked>((resolve) => {
    resolveAsked = resolve;
  });
  const completed: string[] = [];
  const mcp = await connectLegacyClient(new URL("/api/mcp", process.env.BASE_URL).toString(), key.token, {
    capabilities: { elicitation: { url: {} } },
    onElicit: (request: ElicitRequest) => {
      resolveAsked(request.params as unknown as Asked);
      return { action: "accept" };
    },
  });
  mcp.client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    completed.push(notification.params.elicitationId);
  });
  const result = mcp.client.callTool({
    name: "approve_expense",
    arguments: { expense_id: expenseId, amount: 42, description: "url mode" },
  });
  // Settled by the test; a rejection here must not surface before it awaits the result.
  result.catch(() => {});
  return { asked, result, completed, close: mcp.close };
}

/** An operator (not an admin) of the demo tenant `slug` only, written straight into the stack's database. */
async function tenantOperator(slug: string): Promise<{ email: string; password: string }> {
  return withStackDatabase(async (sql) => {
    const email = `e2e-${slug}-${randomBytes(4).toString("hex")}@runifold.test`;
    const password = randomBytes(12).toString("base64url");
    const operator = await createOperator(sql, { email, passwordHash: await hashPassword(password), role: "operator" });
    const tenant = await findTenantBySlug(sql, slug);
    if (!tenant) throw new Error(`the e2e stack has no demo tenant ${slug}`);
    await addOperatorTenant(sql, { operatorId: operator.id, tenantId: tenant.id });
    return { email, password };
  });
}

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function newPage(browser: Browser, options: { javaScriptEnabled?: boolean } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  return { page: await context.newPage(), close: () => context.close() };
}

test("an operator answers on the page a URL-mode elicitation names, and the waiting MCP call completes", async ({ browser }) => {
  const operator = await tenantOperator("tenant-acme");
  const call = await urlOnlyCall(`URL-E2E-${randomBytes(2).toString("hex")}`);
  const { page, close } = await newPage(browser);
  try {
    const asked = await call.asked;
    const url = new URL(asked.url);
    expect(url.origin).toBe(new URL(process.env.BASE_URL as string).origin);
    expect(url.pathname).toMatch(/^\/inbox\/[0-9a-f-]{36}\/decision$/);
    expect(asked.message).toContain("Approve expense");

    // The link carries no credential: the person signs in and comes back to the question.
    await page.goto(asked.url);
    await expect(page).toHaveURL(/\/login\?/);
    await signIn(page, operator);
    await expect(page).toHaveURL(asked.url);
    const question = page.locator("[data-input-key='decision']");
    await expect(question).toContainText("Approve expense");
    await question.getByLabel("Decision").selectOption("approve");
    await question.getByLabel("Comment").fill("answered on the linked page");
    await screenshot(page, "url-input-question");
    await question.getByRole("button", { name: "Submit" }).click();
    await expect(page.getByText("Answer sent; the task resumes.")).toBeVisible();

    const result = await call.result;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ decision: "approved", comment: "answered on the linked page" });
    expect(call.completed).toEqual([asked.elicitationId]);

    // Answered: the page now says so instead of showing the form again.
    await page.goto(asked.url);
    await expect(page.getByText("This question is not waiting for an answer")).toBeVisible();
  } finally {
    await close();
    await call.close();
  }
});

test("the linked page answers without scripts, and another tenant's operator finds nothing there", async ({ browser }) => {
  const operator = await tenantOperator("tenant-acme");
  // An operator of the conformance tenant only: tenant-acme's task is not theirs.
  const outsider = await tenantOperator("conformance");
  const call = await urlOnlyCall(`URL-NS-${randomBytes(2).toString("hex")}`);
  const asked = await call.asked;
  const unknown = asked.url.replace(/\/inbox\/[0-9a-f-]{36}\//, `/inbox/${randomUUID()}/`);

  const foreign = await newPage(browser);
  try {
    await foreign.page.goto("/login");
    await signIn(foreign.page, outsider);
    await expect(foreign.page.getByRole("heading", { name: "Overview" })).toBeVisible();
    const theirs = await foreign.page.goto(asked.url);
    const theirsText = await foreign.page.getByRole("main").textContent();
    const missing = await foreign.page.goto(unknown);
    expect(theirs?.status()).toBe(404);
    expect(missing?.status()).toBe(404);
    expect(await foreign.page.getByRole("main").textContent()).toBe(theirsText);
  } finally {
    await foreign.close();
  }

  const noScript = await newPage(browser, { javaScriptEnabled: false });
  try {
    const posts: string[] = [];
    noScript.page.on("request", (request) => {
      if (request.method() === "POST") posts.push(new URL(request.url()).pathname);
    });
    await noScript.page.goto(asked.url);
    await signIn(noScript.page, operator);
    await expect(noScript.page).toHaveURL(asked.url);
    const question = noScript.page.locator("[data-input-key='decision']");
    await question.getByLabel("Decision").selectOption("reject");
    await question.getByLabel("Comment").fill("no scripts");
    await question.getByRole("button", { name: "Submit" }).click();
    const result = await call.result;
    expect(result).toMatchObject({ isError: true, structuredContent: { decision: "rejected", comment: "no scripts" } });
    expect(posts).toContain(new URL(asked.url).pathname);
  } finally {
    await noScript.close();
    await call.close();
  }
});
