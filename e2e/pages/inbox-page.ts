import type { Page } from "@playwright/test";

export class InboxPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/inbox");
  }

  item(taskId: string) {
    return this.page.locator(`li[data-task-id="${taskId}"]`);
  }
}
