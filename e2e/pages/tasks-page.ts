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

  /** A failed row's stored cause, beside its status. */
  failureCause(taskId: string) {
    return this.row(taskId).getByTestId("failure-cause");
  }

  /** Ticks a row's checkbox (TanStack Table row selection). */
  async select(taskId: string) {
    await this.page.getByLabel(`Select task ${taskId}`).check();
  }

  /** "Cancel selected" / "Rerun selected", then the confirmation dialog, which names the count. */
  async bulk(action: "Cancel" | "Rerun", count: number) {
    await this.page.getByRole("button", { name: `${action} selected` }).click();
    const dialog = this.page.getByRole("dialog", { name: `${action} ${count} task${count === 1 ? "" : "s"}?` });
    await dialog.getByRole("button", { name: `${action} ${count} task${count === 1 ? "" : "s"}` }).click();
  }

  /** The input filter box (`amount > 100`); the list follows the URL as it is typed. */
  get inputFilter() {
    return this.page.getByLabel("Input matches");
  }

  /** The line under the input filter: its help, or the parser's error. */
  get inputFilterHelp() {
    return this.page.locator("#input-filter-help");
  }

  /** One line of the bulk action's per-task results. */
  result(taskId: string) {
    return this.page.getByRole("region", { name: "Bulk action results" }).locator(`li[data-result-task="${taskId}"]`);
  }
}
