import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { runs } from "./runs";

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

/**
 * Open MRTR rounds of ordinary (non-task) modern calls: a round handed back `input_required` bound
 * to a started run, until the client retries (the row is deleted) or its requestState expires. An
 * expired row means the client walked away (mrtr.mdx: servers MUST NOT assume a retry): the sweep
 * cancels the run unless someone else answered its questions (lib/mcp/modern/abandoned-rounds.ts).
 */
export const mcpOrdinaryRounds = pgTable(
  "mcp_ordinary_rounds",
  {
    /** The round's requestState nonce. */
    nonce: text("nonce").primaryKey(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id").notNull(),
    /** The input keys the round asked. */
    keys: jsonb("keys").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    // serves: the sweep of expired rounds (WHERE expires_at <= now() ORDER BY expires_at)
    index("mcp_ordinary_rounds_expires_idx").on(t.expiresAt),
    // serves: the foreign key's cascade, and "is there a later round of this run"
    index("mcp_ordinary_rounds_run_idx").on(t.runId),
  ],
);
