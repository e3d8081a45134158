import { sql } from "drizzle-orm";
import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Worker processes announce the workflow versions they serve and heartbeat while alive. */
export const workerRegistrations = pgTable("worker_registrations", {
  id: text("id").primaryKey(),
  hostname: text("hostname").notNull(),
  pid: text("pid").notNull(),
  /** `${name}@${version}` served by this worker. */
  workflows: text("workflows").array().notNull(),
  concurrency: text("concurrency").notNull(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().default(sql`now()`),
  heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull().default(sql`now()`),
  stoppedAt: timestamp("stopped_at", { withTimezone: true }),
});

export type WorkerRegistration = typeof workerRegistrations.$inferSelect;
