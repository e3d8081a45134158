import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Secrets every web instance must share (e.g. the MRTR requestState HMAC key), created on first use. */
export const serverSecrets = pgTable("server_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
});

/** Nonces of MRTR requestStates already redeemed: a requestState is single-use across instances. */
export const consumedRequestStates = pgTable(
  "consumed_request_states",
  {
    nonce: text("nonce").primaryKey(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  // serves: the retention cleaner's purge of expired nonces
  (t) => [index("consumed_request_states_expires_idx").on(t.expiresAt)],
);
