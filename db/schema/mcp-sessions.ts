import { sql } from "drizzle-orm";
import { doublePrecision, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
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
    /**
     * The session's one standalone GET stream that may deliver (lib/mcp/legacy/standalone-stream.ts):
     * a new GET writes its own random ID here, which retires the previous stream on whichever instance
     * holds it. Null until the client first opens one.
     */
    standaloneStreamId: text("standalone_stream_id"),
  },
  // serves: the purge of expired sessions run with every insert (db/queries/mcp-sessions.ts insertMcpSession);
  // tenant: the cascade when a tenant goes
  (t) => [index("mcp_sessions_expires_idx").on(t.expiresAt), index("mcp_sessions_tenant_idx").on(t.tenantId)],
);

export type McpSession = typeof mcpSessions.$inferSelect;

/**
 * Which session created a task (a task-augmented legacy tools/call that named a session), so the
 * session's standalone GET stream delivers that task's questions and no other session's stream does.
 * No foreign key to runs (like every run_* table, retention deletes runs explicitly): a purged run's
 * row simply joins nothing until its session ends, which deletes it (cascade).
 */
export const mcpSessionTasks = pgTable(
  "mcp_session_tasks",
  {
    runId: uuid("run_id").primaryKey(),
    sessionIdSha256: text("session_id_sha256")
      .notNull()
      .references(() => mcpSessions.idSha256, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
  },
  // serves: the standalone stream's read of its session's open tasks, and the cascade from mcp_sessions
  (t) => [index("mcp_session_tasks_session_idx").on(t.sessionIdSha256)],
);

/**
 * Which live SSE stream carries an input request as `elicitation/create` (2025-11-25
 * basic/transports.mdx "Multiple Connections": the server MUST send each message on only one of the
 * connected streams). A stream sends a question only after claiming its row; the claim lasts while
 * the stream renews `lease_until`, is released when the stream ends, and after a crash simply lapses,
 * so another stream (a re-opened one) may send it again. Rows go with their session (cascade).
 */
export const mcpInputDeliveries = pgTable(
  "mcp_input_deliveries",
  {
    runId: uuid("run_id").notNull(),
    inputKey: text("input_key").notNull(),
    sessionIdSha256: text("session_id_sha256")
      .notNull()
      .references(() => mcpSessions.idSha256, { onDelete: "cascade" }),
    /** The claiming stream's random ID (never sent to the client). */
    streamId: text("stream_id").notNull(),
    leaseUntil: timestamp("lease_until", { withTimezone: true, precision: 3 }).notNull(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
  },
  (t) => [
    // serves: the claim (one row per question)
    primaryKey({ columns: [t.runId, t.inputKey] }),
    // serves: a stream renewing and releasing its claims
    index("mcp_input_deliveries_stream_idx").on(t.streamId),
    // serves: the cascade when a session ends or expires
    index("mcp_input_deliveries_session_idx").on(t.sessionIdSha256),
  ],
);

/**
 * Which run an ordinary (non-task) legacy tools/call created, by the JSON-RPC request ID the client
 * gave it, so a `notifications/cancelled {requestId}` POSTed to any instance finds the run
 * (2025-11-25 basic/utilities/cancellation.mdx: the receiver SHOULD stop processing). Request IDs
 * are unique only within a session, so the session (when the call named one) and the credential
 * are part of the match (lib/mcp/legacy/ordinary-cancel.ts). Rows outlive the call by a bounded
 * time (`expires_at`) and are purged on insert. No foreign key to runs (see mcp_session_tasks).
 */
export const mcpOrdinaryCalls = pgTable(
  "mcp_ordinary_calls",
  {
    runId: uuid("run_id").primaryKey(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    keyId: text("key_id").notNull(),
    /** Null for a call made without Mcp-Session-Id (matched by credential only when unambiguous). */
    sessionIdSha256: text("session_id_sha256").references(() => mcpSessions.idSha256, { onDelete: "cascade" }),
    /** The tools/call's JSON-RPC id as JSON text, so `1` and `"1"` stay different IDs. */
    requestId: text("request_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    // serves: the lookup of a notifications/cancelled (credential + request id, then session)
    index("mcp_ordinary_calls_request_idx").on(t.tenantId, t.keyId, t.requestId),
    // serves: the purge of expired rows run with every insert
    index("mcp_ordinary_calls_expires_idx").on(t.expiresAt),
    // serves: the cascade from a deleted or purged session (every session insert purges expired ones)
    index("mcp_ordinary_calls_session_idx").on(t.sessionIdSha256),
  ],
);

/**
 * The highest `notifications/progress` value sent for a task's progressToken on any legacy stream
 * (2025-11-25 basic/utilities/progress.mdx: "The progress value MUST increase with each
 * notification"; tasks.mdx: the token stays valid for the task's lifetime, so every tasks/result
 * stream of the task continues one sequence). A stream sends a value only after raising this mark,
 * so a re-opened stream never repeats or lowers it. Deleted when a stream sees the task terminal.
 */
export const mcpProgressMarks = pgTable("mcp_progress_marks", {
  runId: uuid("run_id").primaryKey(),
  progress: doublePrecision("progress").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
});
