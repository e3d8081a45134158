import type { Page } from "@playwright/test";

export class TaskDetailPage {
  constructor(private readonly page: Page) {}

  async goto(taskId: string) {
    await this.page.goto(`/tasks/${taskId}`);
  }

  get diagnosis() {
    return this.page.getByTestId("diagnosis");
  }

  /** "Purged at … with final status …" on a purged task's page. */
  get purgedNotice() {
    return this.page.getByTestId("purged-notice");
  }

  get status() {
    return this.page.getByTestId("task-status");
  }

  async cancel() {
    await this.page.getByRole("button", { name: "Cancel task" }).click();
    await this.page.getByRole("button", { name: "Yes, cancel" }).click();
  }
}
