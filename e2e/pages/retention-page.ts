import type { Page } from "@playwright/test";

export class RetentionPage {
  constructor(private readonly page: Page) {}

  async goto(query = "") {
    await this.page.goto(`/retention${query}`);
  }

  /** A tenant's row in the settings table. */
  settings(tenantSlug: string) {
    return this.page.locator(`tr[data-tenant="${tenantSlug}"]`);
  }

  /** A cleaner pass in the runs table (by its retention_runs id). */
  run(runId: string) {
    return this.page.locator(`tr[data-retention-run="${runId}"]`);
  }

  tombstone(taskId: string) {
    return this.page.locator(`tr[data-tombstone="${taskId}"]`);
  }
}
