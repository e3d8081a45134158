import { sql } from "drizzle-orm";
import { integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Workflow definitions as workers publish them (name, version, schemas, preflight requests). The web
 * app, console and CLI read only this: they never import workflow code. One row per `name@version`;
 * `revision` counts replacements (allowed only while that version has no live runs).
 */
export const workflowDefinitions = pgTable(
  "workflow_definitions",
  {
    name: text("name").notNull(),
    version: integer("version").notNull(),
    revision: integer("revision").notNull().default(1),
    title: text("title"),
    description: text("description").notNull().default(""),
    /** JSON Schema (draft 2020-12) of the input, derived from the workflow's zod schema. */
    inputSchema: jsonb("input_schema").notNull(),
    outputSchema: jsonb("output_schema"),
    /** Input requests a caller may answer before the run starts, keyed. */
    preflight: jsonb("preflight").notNull().default(sql`'{}'::jsonb`),
    /**
     * What the workflow may ask while it runs, `{input, approval}` (WorkflowDefinition.asks); null:
     * not declared, so it may ask anything. MCP capability gating reads it (lib/mcp/input-gate.ts).
     */
    asks: jsonb("asks"),
    /** `{key, limit}` or `{path, limit}` (a JSON pointer into the input, split): WorkflowDefinition.concurrency (0043). */
    concurrency: jsonb("concurrency"),
    /** WorkflowDefinition.priority (0043): within a tenant, higher is claimed first. */
    priority: integer("priority").notNull().default(0),
    /** sha256 over the canonical JSON of the declared definition (everything above but revision). */
    fingerprint: text("fingerprint").notNull(),
    firstSeenAt: timestamp("first_seen_at", { withTimezone: true }).notNull().default(sql`now()`),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().default(sql`now()`),
    /** The worker that published the current revision. */
    publishedBy: text("published_by").notNull(),
  },
  // serves: lookup by (name, version) on publish, route binding and preflight reads
  (t) => [primaryKey({ columns: [t.name, t.version] })],
);

/** Every revision a definition had: who replaced what, and when (the versioning guard's record). */
export const workflowDefinitionRevisions = pgTable(
  "workflow_definition_revisions",
  {
    name: text("name").notNull(),
    version: integer("version").notNull(),
    revision: integer("revision").notNull(),
    fingerprint: text("fingerprint").notNull(),
    definition: jsonb("definition").notNull(),
    publishedBy: text("published_by").notNull(),
    publishedAt: timestamp("published_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: a definition's revision history, newest first
  (t) => [primaryKey({ columns: [t.name, t.version, t.revision] })],
);

export type WorkflowDefinitionRow = typeof workflowDefinitions.$inferSelect;
