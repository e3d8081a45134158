import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  doublePrecision,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { runs } from "./runs";
import { tenants } from "./tenants";

/**
 * One approval per run and key (ctx.requestApproval, docs/approvals.md): what is asked, the policy
 * as the workflow gave it (normalized), the digests the receipt signs, the people separation of
 * duties excludes (resolved when it opens), and its clock: expiry and escalation are timestamps of
 * the store's clock, which the worker's wait is claimable at.
 */
export const approvals = pgTable(
  "approvals",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    tenantId: uuid("tenant_id").notNull(),
    message: text("message").notNull(),
    details: jsonb("details"),
    requestedSchema: jsonb("requested_schema"),
    policy: jsonb("policy").notNull(),
    argsDigest: text("args_digest").notNull(),
    detailsDigest: text("details_digest").notNull(),
    policyDigest: text("policy_digest").notNull(),
    excludedOperatorIds: uuid("excluded_operator_ids").array().notNull().default(sql`'{}'`),
    /** open → approved | rejected | expired, once. */
    status: text("status").notNull().default("open"),
    outcome: text("outcome"),
    openedAt: timestamp("opened_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }),
    escalatesAt: timestamp("escalates_at", { withTimezone: true, precision: 3 }),
    escalatedAt: timestamp("escalated_at", { withTimezone: true, precision: 3 }),
    settledAt: timestamp("settled_at", { withTimezone: true, precision: 3 }),
    /** The next reminder (policy.remind.every) by the store's clock; advanced by the worker that sends one. */
    nextRemindAt: timestamp("next_remind_at", { withTimezone: true, precision: 3 }),
    /** The compact JWS signed when the workflow first saw the settled approval. */
    receipt: text("receipt"),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.key] }),
    check("approvals_status_check", sql`${t.status} IN ('open', 'approved', 'rejected', 'expired')`),
    check("approvals_outcome_check", sql`${t.outcome} IN ('approved', 'rejected', 'expired')`),
    // serves: GET /api/v1/approvals and `runifold approvals list` (a tenant's open approvals, oldest first)
    index("approvals_open_tenant_idx").on(t.tenantId, t.openedAt).where(sql`${t.status} = 'open'`),
  ],
);

/** One decision per person and approval; the operator's email is kept as it was when they decided. */
export const approvalDecisions = pgTable(
  "approval_decisions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    runId: uuid("run_id").notNull(),
    key: text("key").notNull(),
    /** No foreign key on purpose: a decision outlives its operator's later removal. */
    operatorId: uuid("operator_id").notNull(),
    email: text("email").notNull(),
    /** console, mcp, email, cli, http */
    channel: text("channel").notNull(),
    decision: text("decision").notNull(),
    comment: text("comment"),
    fields: jsonb("fields"),
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
  },
  (t) => [
    foreignKey({
      name: "approval_decisions_approval_fk",
      columns: [t.runId, t.key],
      foreignColumns: [approvals.runId, approvals.key],
    }).onDelete("cascade"),
    check("approval_decisions_decision_check", sql`${t.decision} IN ('approve', 'reject')`),
    // serves: no person counts twice (decideApproval's insert), the decisions of one approval, the cascade
    uniqueIndex("approval_decisions_person_uq").on(t.runId, t.key, t.operatorId),
  ],
);

/** ES256 keys that sign receipts: the private JWK sealed (AES-256-GCM, kid as additional data); the newest signs. */
export const approvalSigningKeys = pgTable(
  "approval_signing_keys",
  {
    kid: text("kid").primaryKey(),
    publicJwk: jsonb("public_jwk").notNull(),
    privateSealed: text("private_sealed").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
  },
  // serves: the signing key (newest first) and the JWKS
  (t) => [index("approval_signing_keys_created_idx").on(t.createdAt)],
);

/**
 * The approval metrics (packages/sdk/src/approvals/settle-stats.ts): every settlement counted in its
 * own transaction, per tenant, way (decisions | expiry) and outcome — count, seconds summed and
 * cumulative counts per bucket bound. Read at scrape time; only ever grows.
 */
export const approvalSettleStats = pgTable(
  "approval_settle_stats",
  {
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    settledBy: text("settled_by").notNull(),
    outcome: text("outcome").notNull(),
    settled: bigint("settled", { mode: "number" }).notNull().default(0),
    secondsSum: doublePrecision("seconds_sum").notNull().default(0),
    buckets: bigint("buckets", { mode: "number" }).array().notNull(),
  },
  (t) => [
    primaryKey({ name: "approval_settle_stats_pk", columns: [t.tenantId, t.settledBy, t.outcome] }),
    check("approval_settle_stats_settled_by_check", sql`${t.settledBy} IN ('decisions', 'expiry')`),
    check("approval_settle_stats_outcome_check", sql`${t.outcome} IN ('approved', 'rejected', 'expired')`),
  ],
);
