import { expect, type Page } from "@playwright/test";

/** The API keys card of a tenant's page (`/tenants/<slug>`). */
export class TenantKeysPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string) {
    await this.page.goto(`/tenants/${slug}`);
    await expect(this.page.getByRole("heading", { name: slug, level: 1 })).toBeVisible();
  }

  /** Revokes a key by name and waits for the list to say so. */
  async revoke(name: string) {
    await this.page.getByRole("button", { name: `Revoke key ${name}` }).click();
    await expect(this.page.getByRole("button", { name: `Revoke key ${name}` })).toHaveCount(0);
  }
}
