import { sql } from "drizzle-orm";
import { integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";

/** People who sign in to the operator UI. `admin` sees every tenant; `operator` only its memberships. */
export const operators = pgTable("operators", {
  id: uuid("id").primaryKey().defaultRandom(),
  email: text("email").notNull().unique(),
  name: text("name").notNull().default(""),
  /** scrypt: `scrypt$N$r$p$salt$hash` (base64url). */
  passwordHash: text("password_hash").notNull(),
  role: text("role").notNull(),
  disabledAt: timestamp("disabled_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
});

export const operatorTenants = pgTable(
  "operator_tenants",
  {
    operatorId: uuid("operator_id")
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
  },
  // serves: requireOperator's membership check (operator, tenant)
  (t) => [primaryKey({ columns: [t.operatorId, t.tenantId] })],
);

/** Failed sign-ins per key (email or client address), for throttling shared by every web instance. */
export const loginThrottle = pgTable("login_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull().default(sql`now()`),
  lockedUntil: timestamp("locked_until", { withTimezone: true }),
});
