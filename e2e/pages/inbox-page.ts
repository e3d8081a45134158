import type { Page } from "@playwright/test";

export class InboxPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/inbox");
  }

  /** The inbox form of one task (`/inbox/<id>`, the link a webhook carries). */
  async gotoTask(taskId: string) {
    await this.page.goto(`/inbox/${taskId}`);
  }

  item(taskId: string) {
    return this.page.locator(`li[data-task-id="${taskId}"]`);
  }
}
