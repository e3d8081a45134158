import type { Page } from "@playwright/test";

export class TasksPage {
  constructor(private readonly page: Page) {}

  async goto(query = "") {
    await this.page.goto(`/tasks${query}`);
  }

  row(taskId: string) {
    return this.page.locator(`tr[data-task-id="${taskId}"]`);
  }

  status(taskId: string) {
    return this.row(taskId).getByTestId("task-status");
  }
}
