import { expect, type Page } from "@playwright/test";

/** The console's login page on a stack with single sign-on (its origin is the SSO stack's, not BASE_URL). */
export class SsoLoginPage {
  constructor(
    private readonly page: Page,
    private readonly origin: string,
    private readonly idpName: string,
  ) {}

  async goto(path = "/login") {
    await this.page.goto(`${this.origin}${path}`);
  }

  get ssoButton() {
    return this.page.getByRole("button", { name: `Sign in with ${this.idpName}` });
  }

  get passwordButton() {
    return this.page.getByRole("button", { name: "Sign in", exact: true });
  }

  /** The login page's own message (Next's route announcer is an alert too, outside main). */
  get alert() {
    return this.page.locator("main").getByRole("alert");
  }

  async signInWithPassword(email: string, password: string) {
    await this.page.getByLabel("Email").fill(email);
    await this.page.getByLabel("Password").fill(password);
    await this.passwordButton.click();
  }
}

/** oidc-provider's development login and consent pages (e2e/sso/test-idp.ts), on the identity provider's origin. */
export class TestIdpPages {
  constructor(
    private readonly page: Page,
    private readonly issuer: string,
  ) {}

  /** Signs in at the identity provider as `login` (any password) and consents for the console. */
  async signInAs(login: string) {
    await expect(this.page).toHaveURL((url) => url.href.startsWith(`${this.issuer}/interaction/`));
    await this.page.locator('input[name="login"]').fill(login);
    await this.page.locator('input[name="password"]').fill("any password");
    await this.page.getByRole("button", { name: "Sign-in" }).click();
    await this.page.getByRole("button", { name: "Continue" }).click();
  }
}
