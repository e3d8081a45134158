import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { operators } from "./operators";

/**
 * Operator API tokens `rfo_<id>_<secret>` (migration 0044): an operator's credential for the admin
 * HTTP API and the approvals API. Only the SHA-256 of the secret is stored; the token acts with its
 * operator's rights at each request, narrowed by `scopes`.
 */
export const operatorApiTokens = pgTable(
  "operator_api_tokens",
  {
    id: text("id").primaryKey(),
    operatorId: uuid("operator_id")
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    secretSha256: text("secret_sha256").notNull(),
    scopes: text("scopes").array().notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: an operator's tokens (settings page), and the operator's cascade
  (t) => [index("operator_api_tokens_operator_idx").on(t.operatorId, t.createdAt)],
);
