import type { Page } from "@playwright/test";

/** The console's Connections page: the OAuth clients people connected, and revoking them. */
export class ConnectionsPage {
  constructor(private readonly page: Page) {}

  async goto(tenant?: string) {
    await this.page.goto(tenant ? `/connections?tenant=${encodeURIComponent(tenant)}` : "/connections");
  }

  get own() {
    return this.page.getByRole("table", { name: "Your connected clients" });
  }

  get tenant() {
    return this.page.getByRole("table", { name: "Tenant connections" });
  }

  row(table: "own" | "tenant", grantId: string) {
    return (table === "own" ? this.own : this.tenant).locator(`tr[data-grant-id="${grantId}"]`);
  }

  /** Revokes a row (accepting the confirmation dialog). */
  async revoke(table: "own" | "tenant", grantId: string) {
    this.page.once("dialog", (dialog) => void dialog.accept());
    await this.row(table, grantId)
      .getByRole("button", { name: /^Revoke / })
      .click();
  }
}
