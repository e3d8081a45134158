import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The stored audit trail (ASVS 7.1/7.2): sign-in success and failure, every admin action, refused
 * credentials. Written by lib/admin/audit.ts in the same process as the action, independent of the
 * log level, and read by admins only. Never holds a secret: fields name objects by id and emails of
 * failed sign-ins only as a hash prefix.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    /** `operator:<id>`, `cli:<user>@<host>`, `seed`, `anonymous` (a failed sign-in). */
    actor: text("actor").notNull(),
    /** Set when the actor is an operator: survives the operator's later changes (no foreign key on purpose). */
    operatorId: uuid("operator_id"),
    /** `auth.login.success`, `tenant.disable`, `key.create`, … */
    action: text("action").notNull(),
    /** The tenant the action concerns, when there is one (filters and a tenant's own trail). */
    tenantId: uuid("tenant_id"),
    /** The client address of the request when known (sign-in). */
    address: text("address"),
    fields: jsonb("fields").notNull().default(sql`'{}'::jsonb`),
  },
  // serves: audit list (newest first, optionally per tenant or action) and the age-based purge
  (t) => [index("audit_events_at_idx").on(t.at), index("audit_events_tenant_at_idx").on(t.tenantId, t.at)],
);
