import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
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
  /**
   * Bumped by "sign out everywhere", a password change or reset, and disabling: every session JWT
   * carries the version it was issued under, and requireOperator refuses any other (ASVS 3.3).
   */
  sessionVersion: integer("session_version").notNull().default(0),
  /** Set by an admin's reset: the console lets this operator do nothing but choose a new password. */
  mustChangePassword: boolean("must_change_password").notNull().default(false),
  passwordChangedAt: timestamp("password_changed_at", { withTimezone: true }),
  /**
   * The TOTP secret (ASVS 2.8), sealed with AES-256-GCM under RUNIFOLD_MFA_KEY or NEXTAUTH_SECRET
   * (lib/auth/mfa-secret.ts), the operator's id as additional data. Set with `mfa_enabled_at` NULL
   * while enrolment waits for the first code; NULL: no second factor.
   */
  mfaSecretSealed: text("mfa_secret_sealed"),
  mfaEnabledAt: timestamp("mfa_enabled_at", { withTimezone: true }),
  /** The last TOTP time step accepted: a code is good once, never replayed within its window. */
  mfaLastStep: bigint("mfa_last_step", { mode: "number" }),
  /** Approval policies name these (docs/approvals.md): the SSO groups claim at each sign-in, or set by an admin. */
  groups: text("groups").array().notNull().default(sql`'{}'`),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
});

/**
 * One-time recovery codes of an operator's second factor: SHA-256 of the code (128 random bits, so
 * a plain hash suffices, as for API keys), shown once at enrolment; `used_at` spends one.
 */
export const operatorRecoveryCodes = pgTable(
  "operator_recovery_codes",
  {
    operatorId: uuid("operator_id")
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: the lookup of a code by (operator, hash), and the operator's cascade
  (t) => [primaryKey({ columns: [t.operatorId, t.codeHash] })],
);

/**
 * One row per console sign-in: the JWT carries its id, so signing out ends exactly that session at
 * once (a JWT alone stays valid until it expires). Purged a day after it ended or expired.
 */
export const operatorSessions = pgTable(
  "operator_sessions",
  {
    id: text("id").primaryKey(),
    operatorId: uuid("operator_id")
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    /** How it was signed in: `password` or `sso` (an admin's password sign-in needs a second factor). */
    method: text("method").notNull().default("password"),
    /** Signed in with the password, the second factor still to come: the console refuses it (ASVS 2.8). */
    secondFactorPending: boolean("second_factor_pending").notNull().default(false),
    /** When this session last proved who it is (sign-in, second factor, re-entry): ASVS 3.7.1's "recent". */
    authenticatedAt: timestamp("authenticated_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: sign out everywhere (end every session of an operator) and the purge by expiry
  (t) => [index("operator_sessions_operator_idx").on(t.operatorId), index("operator_sessions_expires_idx").on(t.expiresAt)],
);

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
  // serves: requireOperator's membership check (operator, tenant); tenant: the cascade when a tenant goes
  (t) => [primaryKey({ columns: [t.operatorId, t.tenantId] }), index("operator_tenants_tenant_idx").on(t.tenantId)],
);

/**
 * Sign-in attempts per key (an email, a client address, or the pair), for throttling shared by every
 * web instance. An attempt is counted before its password is checked and cleared by a success;
 * `lock_count` doubles each successive lock. Rows untouched for a day are purged (bounded table).
 */
export const loginThrottle = pgTable(
  "login_throttle",
  {
    key: text("key").primaryKey(),
    failures: integer("failures").notNull().default(0),
    windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull().default(sql`now()`),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    lockCount: integer("lock_count").notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: the purge of rows untouched for a day
  (t) => [index("login_throttle_updated_idx").on(t.updatedAt)],
);
