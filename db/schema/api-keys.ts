import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";

/** API keys `rf_<id>_<secret>`: only the SHA-256 of the secret is stored. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    secretSha256: text("secret_sha256").notNull(),
    scopes: text("scopes").array().notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    /** Who minted it, as the audit trail names actors (`operator:<id>`, `cli:<user>@<host>`, `seed`). */
    createdBy: text("created_by"),
    /** The minting operator, so disabling that operator can revoke its keys in one action. */
    createdByOperatorId: uuid("created_by_operator_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: keys list --tenant (listKeys); revoking an operator's keys
  (t) => [
    index("api_keys_tenant_idx").on(t.tenantId, t.createdAt),
    index("api_keys_created_by_operator_idx").on(t.createdByOperatorId),
  ],
);

export type ApiKey = typeof apiKeys.$inferSelect;
