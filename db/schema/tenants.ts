import { sql } from "drizzle-orm";
import { bigint, boolean, check, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const tenants = pgTable(
  "tenants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    slug: text("slug").notNull().unique(),
    name: text("name").notNull(),
    /** Upper bound on a task handle's ttlMs for every route of this tenant. */
    maxTtlMs: bigint("max_ttl_ms", { mode: "number" }).notNull().default(86_400_000),
    /** How long terminal runs are kept before the cleaner purges them. */
    retentionMs: bigint("retention_ms", { mode: "number" }).notNull().default(604_800_000),
    /**
     * Task handles for clients without tasks (lib/mcp/handles): the companion tools are listed to such
     * clients and a call that outlives its deadline answers with a handle. `runifold tenants set <slug>
     * --handle-tools on|off`.
     */
    handleTools: boolean("handle_tools").notNull().default(true),
    /**
     * At most this many of the tenant's runs leased at once, across every worker; null: the workers'
     * share of the fleet's slots (RUNIFOLD_TENANT_SHARE, packages/sdk/src/ops/claim-runs.ts). `runifold
     * tenants set <slug> --max-concurrent-runs N|default`.
     */
    maxConcurrentRuns: integer("max_concurrent_runs"),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  (t) => [check("tenants_max_concurrent_runs_positive", sql`${t.maxConcurrentRuns} > 0`)],
);

export type Tenant = typeof tenants.$inferSelect;
