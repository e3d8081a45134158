import { expect, type Page } from "@playwright/test";

/** The OAuth consent page (/oauth/authorize), reached from a client's authorization URL. */
export class ConsentPage {
  constructor(private readonly page: Page) {}

  /** Opens the client's authorization URL; signs in first when the browser has no session. */
  async open(authorizationUrl: URL, signIn?: { email: string; password: string }) {
    await this.page.goto(authorizationUrl.toString());
    if (signIn) {
      // Not signed in: the login page, which comes back to the whole authorize URL.
      await expect(this.page).toHaveURL(/\/login\?callbackUrl=%2Foauth%2Fauthorize/);
      await this.page.getByLabel("Email").fill(signIn.email);
      await this.page.getByLabel("Password").fill(signIn.password);
      await this.page.getByRole("button", { name: "Sign in" }).click();
    }
    await expect(this.form).toBeVisible();
  }

  get form() {
    return this.page.getByRole("form", { name: "Authorize client" });
  }

  get redirectHost() {
    return this.page.getByTestId("redirect-host");
  }

  scope(scope: string) {
    return this.form.getByRole("checkbox", { name: new RegExp(`^${scope} `) });
  }

  async pickTenant(slug: string) {
    await this.form.getByRole("radio", { name: new RegExp(`^${slug}\\b`) }).check();
  }

  async approve() {
    await this.form.getByRole("button", { name: "Approve" }).click();
  }

  async deny() {
    await this.form.getByRole("button", { name: "Deny" }).click();
  }
}
