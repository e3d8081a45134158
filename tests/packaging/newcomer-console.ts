import { randomBytes } from "node:crypto";
import { type Browser, chromium, type Page } from "@playwright/test";
import { generate } from "otplib";

/**
 * The console in a real browser (Debian's chromium, as the e2e suite uses) for the newcomer test:
 * what a person does there with the credentials `runifold-server dev` printed.
 */
export type NewcomerConsole = {
  /** Signs in; on the first sign-in the console asks for a new password, which is set. */
  signIn(email: string, password: string): Promise<void>;
  /** Account → API tokens: a token with the scopes the CLI's admin verbs need; answers the secret shown once. */
  createToken(name: string): Promise<string>;
  /** The inbox's form for the task's question: picks `value` in the field labelled `label` and submits. */
  answer(taskId: string, label: string, value: string): Promise<void>;
  close(): Promise<void>;
};

export async function openConsole(origin: string): Promise<NewcomerConsole> {
  const browser: Browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
  const page: Page = await browser.newPage({ baseURL: origin });
  page.setDefaultTimeout(60_000);
  const visible = (heading: string) => page.getByRole("heading", { name: heading }).first().waitFor();
  /** A failed step says where the browser was and what the page said. */
  const described =
    <A extends unknown[], R>(what: string, step: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await step(...args);
      } catch (error) {
        const text = await page
          .locator("main")
          .textContent({ timeout: 5_000 })
          .catch(() => "(no main)");
        throw new Error(
          `${what} failed at ${page.url()}: ${(error as Error).message}\n--- page ---\n${(text ?? "").slice(0, 2_000)}`,
        );
      }
    };

  return {
    signIn: described("sign-in", async (email: string, password: string) => {
      await page.goto("/login");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname !== "/login");
      // The console sends a new admin through what it still owes before any page: a new password
      // in place of the printed one, then two-factor authentication (README, "Quick start").
      const trail: string[] = [];
      for (let owed = 0; owed < 4; owed++) {
        await page.goto("/account/tokens");
        const at = new URL(page.url()).pathname;
        trail.push(at);
        if (at === "/account/password") {
          await page.getByLabel("Current password").fill(password);
          await page.getByLabel("New password").fill(`newcomer-${randomBytes(12).toString("base64url")}`);
          await page.getByRole("button", { name: "Change password" }).click();
          // Changed: the page says so, or the console goes straight on to what is still owed.
          const changed = page.getByRole("status").filter({ hasText: "Password changed" });
          await Promise.race([changed.waitFor(), page.waitForURL((url) => url.pathname !== "/account/password")]);
        } else if (at === "/account/mfa") {
          // The authenticator app's part: otplib computes the code from the secret the page shows.
          await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
          const secret = ((await page.getByTestId("mfa-secret").textContent()) ?? "").trim();
          await page.getByLabel("Code from the app").fill(await generate({ secret }));
          await page.getByRole("button", { name: "Turn on" }).click();
          await page.getByTestId("recovery-codes").waitFor();
          await page.getByRole("button", { name: "Done" }).click();
        } else return;
      }
      throw new Error(`the console still asks for something: went ${trail.join(" → ")}`);
    }),
    createToken: described("token creation", async (name: string) => {
      await page.goto("/account/tokens");
      await visible("API tokens");
      const form = page.getByRole("form", { name: "Create API token" });
      await form.getByLabel("Token name").fill(name);
      await form.getByLabel("admin:write").check();
      await form.getByRole("button", { name: "Create token" }).click();
      const shown = page.getByTestId("new-operator-token");
      await shown.waitFor();
      return ((await shown.textContent()) ?? "").trim();
    }),
    answer: described("the inbox answer", async (taskId: string, label: string, value: string) => {
      await page.goto(`/inbox/${taskId}`);
      const item = page.locator(`li[data-task-id="${taskId}"]`);
      await item.getByLabel(label).selectOption(value);
      await item.getByRole("button", { name: "Submit" }).click();
      const outcome = item.getByRole("status").or(item.getByRole("alert")).first();
      await outcome.waitFor();
      if ((await outcome.getAttribute("role")) === "alert")
        throw new Error(`the inbox refused the answer: ${await outcome.textContent()}`);
    }),
    close: () => browser.close(),
  };
}
