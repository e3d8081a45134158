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
    await form.getByLabel("Version").fill(String(route.version));
    await form.getByRole("button", { name: "Save revision" }).click();
    await expect(this.card(route.tenant, route.tool)).toContainText(`→ ${route.workflow}@${route.version}`);
  }

  card(tenant: string, tool: string) {
    return this.page.locator(`[data-route="${tenant}/${tool}"]`);
  }
}
