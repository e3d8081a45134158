import { expect, type Page } from "@playwright/test";

export class TenantsPage {
  constructor(private readonly page: Page) {}

  async createTenant(slug: string, name: string) {
    await this.page.goto("/tenants");
    const form = this.page.getByRole("form", { name: "Create tenant" });
    await form.getByLabel("Slug").fill(slug);
    await form.getByLabel("Name").fill(name);
    await form.getByRole("button", { name: "Create tenant" }).click();
    await expect(this.page.getByRole("link", { name: slug, exact: true })).toBeVisible();
  }

  async open(slug: string) {
    await this.page.goto(`/tenants/${slug}`);
    await expect(this.page.getByRole("heading", { name: slug, level: 1 })).toBeVisible();
  }

  /** Creates a key and returns the token shown once. */
  async createKey(name: string): Promise<string> {
    const form = this.page.getByRole("form", { name: "Create API key" });
    await form.getByLabel("Key name").fill(name);
    await form.getByRole("button", { name: "Create key" }).click();
    const token = this.page.getByTestId("new-token");
    await expect(token).toBeVisible();
    return (await token.textContent())?.trim() ?? "";
  }
}
