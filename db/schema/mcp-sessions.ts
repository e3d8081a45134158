import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";

/**
 * Legacy (2025-11-25 and older) MCP sessions: the `Mcp-Session-Id` minted at `initialize`, with what
 * the client declared, so any web instance knows which server-initiated requests (elicitation) the
 * client may receive. Only the SHA-256 of the ID is stored: a copy of this table does not let anyone
 * present a live session. A session is bound to the credential that initialized it (tenant + key id,
 * the same binding as task handles); it expires after a day without use (sliding, lib/mcp/legacy/session.ts).
 */
export const mcpSessions = pgTable(
  "mcp_sessions",
  {
    /** sha256(Mcp-Session-Id), hex. Serves every lookup by the header (primary key). */
    idSha256: text("id_sha256").primaryKey(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    /** The credential's binding id (an API key id, an OAuth grant id, `loopback`): no FK, not every kind is a key. */
    keyId: text("key_id").notNull(),
    protocolVersion: text("protocol_version").notNull(),
    /** `params.capabilities` of the client's initialize, as sent. */
    clientCapabilities: jsonb("client_capabilities").notNull(),
    clientInfo: jsonb("client_info"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  // serves: the purge of expired sessions run with every insert (db/queries/mcp-sessions.ts insertMcpSession)
  (t) => [index("mcp_sessions_expires_idx").on(t.expiresAt)],
);

export type McpSession = typeof mcpSessions.$inferSelect;
