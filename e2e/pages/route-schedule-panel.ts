import type { Page } from "@playwright/test";

/** A route card's schedule: its summary (next fire times) and the editor under "Add/Change schedule". */
export class RouteSchedulePanel {
  constructor(
    private readonly page: Page,
    private readonly tenant: string,
    private readonly tool: string,
  ) {}

  get card() {
    return this.page.locator(`[data-route="${this.tenant}/${this.tool}"]`);
  }

  get form() {
    return this.card.getByRole("form", { name: `Schedule of ${this.tenant}/${this.tool}` });
  }

  async open() {
    await this.card.locator("summary", { hasText: /schedule/ }).click();
  }

  async fill(cron: string, timezone: string) {
    await this.form.getByLabel("Cron").fill(cron);
    await this.form.getByLabel("Timezone").fill(timezone);
  }

  async preview() {
    await this.form.getByRole("button", { name: "Preview" }).click();
  }

  async save() {
    await this.form.getByRole("button", { name: "Save schedule" }).click();
  }

  get error() {
    return this.card.getByRole("alert");
  }

  /** The unsaved preview's fire times. */
  get previewTimes() {
    return this.card.getByRole("list", { name: "Preview of the next fire times" }).getByRole("listitem");
  }

  /** The saved schedule's summary and its next fire times. */
  get summary() {
    return this.card.locator("[data-schedule]");
  }

  get nextTimes() {
    return this.card.getByRole("list", { name: "Next fire times" }).getByRole("listitem");
  }

  /** A control of the schedule's input (one per property of a flat input schema), by its label. */
  inputField(label: string) {
    return this.form.getByRole("group", { name: "Input of each run" }).getByLabel(label);
  }

  pauseButton(paused: boolean) {
    return this.form.getByRole("button", { name: paused ? "Resume schedule" : "Pause schedule" });
  }
}
