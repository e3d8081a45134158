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

  /** Rerun (ask, confirm); with scripts the page then moves to the new task. */
  async rerun() {
    await this.ask("Rerun");
    await this.page.getByRole("button", { name: "Yes, rerun" }).click();
  }

  get rerunOf() {
    return this.page.getByTestId("rerun-of");
  }

  get rerunAs() {
    return this.page.getByTestId("rerun-as");
  }

  /** The stored failure cause of a failed run (code, step, attempt, message). */
  get failureCause() {
    return this.page.locator('dl[aria-label="Failure cause"]');
  }

  /** A step (or timer, signal delivery) in the Steps panel, by its stored key. */
  step(key: string) {
    return this.page.locator(`li[data-step-key="${key}"]`);
  }

  async cancel() {
    await this.ask("Cancel task");
    await this.page.getByRole("button", { name: "Yes, cancel" }).click();
  }

  /** The first step of a two-step action: a <details> summary (it works without scripts), not a button. */
  private async ask(name: string) {
    await this.page.locator("summary", { hasText: new RegExp(`^${name}`) }).click();
  }
}
