import type { Download, Page } from "@playwright/test";

export class AuditPage {
  constructor(private readonly page: Page) {}

  async goto(query = "") {
    await this.page.goto(`/audit${query}`);
  }

  async filter(values: { actor?: string; action?: string }) {
    const form = this.page.getByRole("search", { name: "Filter audit events" });
    if (values.actor !== undefined) await form.getByLabel("Actor").fill(values.actor);
    if (values.action !== undefined) await form.getByLabel("Action or prefix").fill(values.action);
    await form.getByRole("button", { name: "Filter" }).click();
  }

  rows() {
    return this.page.locator("tr[data-audit-id]");
  }

  /** Clicks "Export CSV" and returns the download it starts. */
  async exportCsv(): Promise<Download> {
    const download = this.page.waitForEvent("download");
    await this.page.getByRole("link", { name: "Export CSV" }).click();
    return download;
  }
}
