import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** One immutable row per purged run (UPDATE and DELETE are refused by a trigger). */
export const tombstones = pgTable(
  "tombstones",
  {
    runId: uuid("run_id").primaryKey(),
    tenantId: uuid("tenant_id").notNull(),
    routeId: uuid("route_id"),
    workflowKey: text("workflow_key").notNull(),
    finalStatus: text("final_status").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true, precision: 3 }),
    purgedAt: timestamp("purged_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    /** SHA-256 of the terminal event's payload: proves what the result was without keeping it. */
    resultDigest: text("result_digest"),
    purgeEpoch: bigint("purge_epoch", { mode: "number" }).notNull(),
  },
  (t) => [
    // serves: the UI's tombstone list per tenant, newest first
    index("tombstones_tenant_purged_idx").on(t.tenantId, t.purgedAt.desc()),
    // serves: the retention pass's purge of tombstones past their own retention, oldest first
    index("tombstones_purged_idx").on(t.purgedAt),
  ],
);

/** The fencing token of the retention control plane: one row, its epoch bumped by each new cleaner. */
export const retentionFence = pgTable("retention_fence", {
  id: integer("id").primaryKey(),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
  holder: text("holder"),
  acquiredAt: timestamp("acquired_at", { withTimezone: true }),
});

/** A record of every cleaner run, for operators; kept 90 days (lib/retention/purge-history.ts). */
export const retentionRuns = pgTable("retention_runs", {
  id: uuid("id").primaryKey().defaultRandom(),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
  holder: text("holder").notNull(),
  dryRun: boolean("dry_run").notNull().default(false),
  status: text("status").notNull(),
  purged: integer("purged").notNull().default(0),
  batches: integer("batches").notNull().default(0),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().default(sql`now()`),
  finishedAt: timestamp("finished_at", { withTimezone: true }),
  durationMs: integer("duration_ms"),
});
