import type { Locator, Page } from "@playwright/test";

/** The console's Webhooks page: the create form, and one section per subscription with its actions and log. */
export class WebhooksPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/webhooks");
  }

  /** Creates a subscription; returns the secret the page shows once. */
  async create(values: { tenant: string; url: string; events: string[] }): Promise<string> {
    const form = this.page.getByRole("form", { name: "Create webhook subscription" });
    await form.getByLabel("Tenant").selectOption({ label: values.tenant });
    await form.getByLabel("Endpoint URL").fill(values.url);
    for (const box of await form.getByRole("checkbox").all()) {
      const wanted = values.events.includes((await box.getAttribute("value")) ?? "");
      if ((await box.isChecked()) !== wanted) await box.click();
    }
    await form.getByRole("button", { name: "Create subscription" }).click();
    return (await this.page.getByTestId("webhook-secret").textContent()) ?? "";
  }

  subscription(url: string): Locator {
    return this.page.getByRole("region", { name: `Webhook ${url}` });
  }

  deliveries(url: string): Locator {
    return this.subscription(url).locator("tr[data-delivery-id]");
  }
}
