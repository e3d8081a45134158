import { expect, type Page } from "@playwright/test";

export class RoutesPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/routes");
  }

  async saveRoute(route: { tenant: string; tool: string; workflow: string; version: number }) {
    const form = this.page.getByRole("form", { name: "Save route" });
    await form.getByLabel("Tenant").selectOption({ label: route.tenant });
    await form.getByLabel("Tool name").fill(route.tool);
    await form.getByLabel("Workflow").fill(route.workflow);
    await form.getByLabel("Version", { exact: true }).fill(String(route.version));
    await form.getByRole("button", { name: "Save revision" }).click();
    await expect(this.card(route.tenant, route.tool)).toContainText(`→ ${route.workflow}@${route.version}`);
  }

  /** Revises a route from its card: the form comes prefilled, only the version changes. */
  async reviseVersion(tenant: string, tool: string, version: number, options: { allowUnpublished?: boolean } = {}) {
    await this.card(tenant, tool)
      .getByRole("link", { name: `Revise ${tenant}/${tool}` })
      .click();
    const form = this.page.getByRole("form", { name: "Save route" });
    await expect(form.getByLabel("Tool name")).toHaveValue(tool);
    await form.getByLabel("Version", { exact: true }).fill(String(version));
    if (options.allowUnpublished) await form.getByLabel("Allow an unpublished version").check();
    await form.getByRole("button", { name: "Save revision" }).click();
    await expect(this.card(tenant, tool)).toContainText(`@${version}`);
  }

  card(tenant: string, tool: string) {
    return this.page.locator(`[data-route="${tenant}/${tool}"]`);
  }
}
