import { sql } from "drizzle-orm";
import { bigint, boolean, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";

/**
 * Immutable route revisions: a tool name of a tenant bound to an exact workflow name and version.
 * Editing inserts a new revision; runs keep the revision id they were created under.
 */
export const routes = pgTable(
  "routes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    toolName: text("tool_name").notNull(),
    revision: integer("revision").notNull(),
    workflowName: text("workflow_name").notNull(),
    workflowVersion: integer("workflow_version").notNull(),
    title: text("title"),
    description: text("description").notNull().default(""),
    inputSchema: jsonb("input_schema").notNull(),
    /**
     * The published definition revision this route revision was bound to (null: bound without a
     * published definition, `--allow-unpublished`), and its preflight input requests, copied at
     * binding so tools/call reads one row.
     */
    definitionRevision: integer("definition_revision"),
    preflight: jsonb("preflight"),
    /** forbidden | optional | required (the legacy era's execution.taskSupport). */
    taskSupport: text("task_support").notNull().default("optional"),
    maxTtlMs: bigint("max_ttl_ms", { mode: "number" }),
    /** How long an ordinary (non-task) tools/call waits for the run before answering with a follow-up note. */
    syncDeadlineMs: integer("sync_deadline_ms").notNull().default(30_000),
    /**
     * A cron expression (5 or 6 fields, parsed by croner) on which the scheduler starts this route's
     * workflow with `schedule_input`, in `schedule_timezone` (IANA, default UTC). After downtime,
     * `schedule_catch_up` says what happens to missed fire times: `skip` them, or fire `one` run.
     */
    scheduleCron: text("schedule_cron"),
    scheduleTimezone: text("schedule_timezone"),
    scheduleCatchUp: text("schedule_catch_up").notNull().default("skip"),
    scheduleInput: jsonb("schedule_input"),
    /** A paused schedule keeps its cron but fires nothing; its cursor still moves, so resuming never fires the pause's backlog. */
    schedulePaused: boolean("schedule_paused").notNull().default(false),
    /** A disabled revision ends the tool; `routes add` later starts a new revision. */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: current revision lookup by (tenant, tool) in tools/list and tools/call
  (t) => [uniqueIndex("routes_tenant_tool_revision_uq").on(t.tenantId, t.toolName, t.revision)],
);

export type Route = typeof routes.$inferSelect;
