import { pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Where each tool's schedule stands: the last fire time the scheduler handled (fired or skipped).
 * Keyed by tool, not revision, so editing a route (a new immutable revision) does not re-fire the past.
 */
export const scheduleCursors = pgTable(
  "schedule_cursors",
  {
    tenantId: uuid("tenant_id").notNull(),
    toolName: text("tool_name").notNull(),
    lastFireAt: timestamp("last_fire_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.toolName] })],
);
