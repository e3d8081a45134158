import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/**
 * One run = one task. `status` follows packages/sdk/src/states.ts; `claimableAt` is non-null exactly
 * when a worker may claim the run at or after that instant: queued: when it was queued; sleeping:
 * its wake time; waiting with a timeout: the timeout; leased: NULL while the lease is held, the
 * expiry once the sweep found it passed (packages/sdk/src/ops/promote-due-runs.ts). Two partial
 * indexes split it into what is due (runs_ready_idx) and timers (runs_timer_idx).
 */
export const runs = pgTable(
  "runs",
  {
    id: uuid("id").primaryKey(),
    tenantId: uuid("tenant_id").notNull(),
    routeId: uuid("route_id"),
    workflowName: text("workflow_name").notNull(),
    workflowVersion: integer("workflow_version").notNull(),
    /** `${name}@${version}`: what workers match on. */
    workflowKey: text("workflow_key").notNull(),
    status: text("status").notNull(),
    input: jsonb("input").notNull(),
    createdByKeyId: text("created_by_key_id"),
    /** Protocol era that created the task: modern | legacy | ordinary | engine. */
    origin: text("origin").notNull().default("engine"),
    ttlMs: bigint("ttl_ms", { mode: "number" }),
    pollIntervalMs: integer("poll_interval_ms").notNull().default(1000),
    claimableAt: timestamp("claimable_at", { withTimezone: true, precision: 3 }),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true, precision: 3 }),
    /** The fencing token: bumped by every claim (resumptions included), checked by every leased write. */
    attempt: integer("attempt").notNull().default(0),
    /**
     * Attempts in a row that ended without progress (the lease expired under a crashed or partitioned
     * worker). Reset by every durable write; the retry budget of a run counts these, never resumptions.
     */
    lostAttempts: integer("lost_attempts").notNull().default(0),
    checkpoints: integer("checkpoints").notNull().default(0),
    /** The run's own timeout: past it the run ends `failed` (code `run_timeout`), wherever it is parked. */
    deadlineAt: timestamp("deadline_at", { withTimezone: true, precision: 3 }),
    /** Why a failed run failed, for operators only: {code, message, step?, stepAttempt?, attempt, at}. */
    failure: jsonb("failure"),
    /** What a waiting run waits for: {timer:{key,wakeAt}} | {signal:{name,since}} | {input:{keys,since}}. */
    waitDetail: jsonb("wait_detail"),
    progress: jsonb("progress"),
    /** The legacy caller's `_meta.progressToken`, reused for progress notifications until terminal. */
    progressToken: jsonb("progress_token"),
    /**
     * The creator's trace context as W3C propagation fields ({traceparent, tracestate}), captured when
     * tracing is on, so every attempt's spans join the trace of the request that created the run.
     */
    traceContext: jsonb("trace_context"),
    statusMessage: text("status_message"),
    cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true, precision: 3 }),
    /** The run that started this one with ctx.child (same tenant), and the history key of that start. */
    parentRunId: uuid("parent_run_id"),
    parentKey: text("parent_key"),
    /** Set by the worker once a run of a workflow with onFailure starts: cancelling it queues a compensation run (0041). */
    onFailure: boolean("on_failure").notNull().default(false),
    /** A compensation run (origin `compensation`): the cancelled run whose onFailure hook it runs. */
    compensatesRunId: uuid("compensates_run_id"),
    /**
     * The run's concurrency slot (0043, stamped at insert from the published definition): the slot is
     * (tenant, workflow name, key); at most `concurrencyLimit` live runs of it hold one (`concurrencyHeld`).
     * A queued run with a key that holds none is set aside (claimable_at NULL) until a holder ends.
     */
    concurrencyKey: text("concurrency_key"),
    concurrencyLimit: integer("concurrency_limit"),
    concurrencyHeld: boolean("concurrency_held").notNull().default(false),
    /** The definition's priority (0043): within a tenant, higher is claimed first. */
    priority: integer("priority").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    finishedAt: timestamp("finished_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    // serves: claimRuns' walk of the tenants with ready runs and its per-tenant pick (WHERE
    // (tenant_id, workflow_key, claimable_at) between ROW bounds ORDER BY them LIMIT n), one probe
    // per enabled busy tenant and served version (fair claiming, M4). Ready = queued, or leased with a
    // lease the sweep found expired: everything in it is due, so a tenant that only holds parked runs
    // is not in it (review 3, E2). Every condition is an index condition and the order is the
    // index's, so the plan stays an ordered index scan even on a young table.
    index("runs_ready_idx")
      .on(t.tenantId, t.workflowKey, t.claimableAt)
      .where(sql`claimable_at IS NOT NULL AND status IN ('queued', 'leased')`),
    // serves: claimRuns' due timers (WHERE workflow_key = $k AND claimable_at <= now() ORDER BY
    // claimable_at LIMIT n), msUntilNextDue (the first entry per version) and promoteDueTimers:
    // parked runs with a time to come back at (a wake, a backoff, a wait's timeout).
    index("runs_timer_idx")
      .on(t.workflowKey, t.claimableAt)
      .where(sql`claimable_at IS NOT NULL AND status IN ('sleeping', 'waiting_signal', 'waiting_input')`),
    // serves: claimRuns' count of each tenant's running runs (WHERE status = 'leased' AND tenant_id =
    // $t), markExpiredLeases, releaseRuns and the workers page (by lease_owner). Partial, so it holds
    // only leased runs (bounded by the fleet's slots); the lease expiry is in no index, so a renewal
    // is a HOT update (renew-lease.ts).
    index("runs_tenant_leased_idx").on(t.tenantId, t.leaseOwner).where(sql`status = 'leased'`),
    // serves: legacy tasks/list and the UI task list (tenant, newest first, keyset on (created_at, id))
    index("runs_tenant_created_idx").on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    // serves: the admin's all-tenants task list and multi-tenant operator lists (newest first, keyset)
    index("runs_created_idx").on(t.createdAt.desc(), t.id.desc()),
    // serves: UI task list filtered by status (tenant, status, newest first)
    index("runs_tenant_status_created_idx").on(t.tenantId, t.status, t.createdAt.desc(), t.id.desc()),
    // serves: UI task list filtered by route revision (tenant, route, newest first)
    index("runs_tenant_route_created_idx").on(t.tenantId, t.routeId, t.createdAt.desc(), t.id.desc()),
    // serves: legacy tasks/list, bound to the calling key (tenant, key, newest first)
    index("runs_tenant_key_created_idx").on(t.tenantId, t.createdByKeyId, t.createdAt.desc(), t.id.desc()),
    // serves: retention cleaner (terminal runs finished before a cutoff)
    index("runs_finished_idx").on(t.finishedAt).where(sql`finished_at IS NOT NULL`),
    // serves: the /api/metrics scrape (live runs by status and workflow; waiting_input runs per tenant).
    // Partial: only live runs are in it, so it stays small however long the history is.
    index("runs_live_status_idx")
      .on(t.status, t.workflowKey)
      .where(sql`status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input')`),
    // serves: the per-credential cap on live tasks (lib/tasks/active-task-cap.ts: count of a key's live
    // runs, WHERE created_by_key_id = $key AND status IN (live) LIMIT cap); partial, only live runs
    index("runs_key_live_idx")
      .on(t.createdByKeyId)
      .where(
        sql`created_by_key_id IS NOT NULL AND status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input')`,
      ),
    // serves: the workers' deadline sweep (live runs past their own timeout)
    index("runs_deadline_idx").on(t.deadlineAt).where(sql`deadline_at IS NOT NULL AND finished_at IS NULL`),
    // serves: a run's children (tasks/get `_meta`, the console's task page, cancel propagation) and the
    // idempotent child start: one child per parent and history key (packages/sdk/src/ops/start-child.ts)
    uniqueIndex("runs_parent_key_idx").on(t.parentRunId, t.parentKey).where(sql`parent_run_id IS NOT NULL`),
    // serves: the count of a concurrency slot's live holders (migration 0043)
    index("runs_concurrency_held_idx")
      .on(t.tenantId, t.workflowName, t.concurrencyKey)
      .where(sql`concurrency_held AND status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input')`),
    // serves: the next set-aside run of a concurrency slot (highest priority, then oldest)
    index("runs_concurrency_waiting_idx")
      .on(t.tenantId, t.workflowName, t.concurrencyKey, t.priority.desc(), t.createdAt, t.id)
      .where(sql`concurrency_key IS NOT NULL AND NOT concurrency_held AND status = 'queued'`),
    // serves: the task list's input filter (`expense_id = E-1` compiles to `input @> $json`, lib/tasks/queries/input-filter-sql.ts)
    index("runs_input_path_idx").using("gin", t.input.op("jsonb_path_ops")),
  ],
);

export type Run = typeof runs.$inferSelect;

/**
 * Memoized step results, durable timers, signal deliveries and step retry state (`retry:<key>`),
 * keyed by (run, key).
 */
export const runSteps = pgTable(
  "run_steps",
  {
    runId: uuid("run_id").notNull(),
    key: text("key").notNull(),
    output: jsonb("output"),
    /**
     * Position of the durable operation in the workflow's call order (null: not positional, e.g.
     * retry state, or called while another operation was pending). Replay compares it to catch code
     * that changed under a running version (packages/sdk/src/replay/history.ts).
     */
    seq: integer("seq"),
    completedAt: timestamp("completed_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
  },
  // serves: replay loading a run's memoized steps, and the exactly-once checkpoint insert
  (t) => [primaryKey({ columns: [t.runId, t.key] })],
);

/** Durable input requests (elicitation-shaped), keyed per run; keys are never reused in a run. */
export const runInputs = pgTable(
  "run_inputs",
  {
    runId: uuid("run_id").notNull(),
    key: text("key").notNull(),
    request: jsonb("request").notNull(),
    response: jsonb("response"),
    answeredBy: text("answered_by"),
    /** requestInput's timeout: past it the request takes `on_timeout` (a default answer, or null: fail the run). */
    deadlineAt: timestamp("deadline_at", { withTimezone: true, precision: 3 }),
    onTimeout: jsonb("on_timeout"),
    requestedAt: timestamp("requested_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    answeredAt: timestamp("answered_at", { withTimezone: true, precision: 3 }),
  },
  // serves: provideInput and the outstanding-requests read of tasks/get
  (t) => [primaryKey({ columns: [t.runId, t.key] })],
);

/** Signals sent to a run; consumed in order by ctx.waitForSignal. */
export const runSignals = pgTable(
  "run_signals",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    runId: uuid("run_id").notNull(),
    name: text("name").notNull(),
    payload: jsonb("payload"),
    consumedAt: timestamp("consumed_at", { withTimezone: true, precision: 3 }),
    sentAt: timestamp("sent_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
  },
  // serves: waitForSignal's lookup of the oldest unconsumed signal of a name
  (t) => [index("run_signals_run_name_idx").on(t.runId, t.name, t.id)],
);

/** Append-only history; the terminal event carries the result a client reads. */
export const runEvents = pgTable(
  "run_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    runId: uuid("run_id").notNull(),
    type: text("type").notNull(),
    payload: jsonb("payload"),
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull().default(sql`clock_timestamp()`),
  },
  // serves: history timeline pages and the terminal-event lookup (run, newest first)
  (t) => [index("run_events_run_idx").on(t.runId, t.id)],
);

export type RunEvent = typeof runEvents.$inferSelect;

/**
 * Caller-supplied idempotency keys of run creation: the same (tenant, scope, key) returns the run
 * it first created until `expires_at`. Scope is `tool:<name>` for routes, `workflow:<name@version>`
 * for direct creation, `schedule:<tool>` for the scheduler.
 */
export const runIdempotencyKeys = pgTable(
  "run_idempotency_keys",
  {
    tenantId: uuid("tenant_id").notNull(),
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    runId: uuid("run_id").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
  },
  (t) => [
    // serves: the create-or-return lookup (one key per tenant and scope)
    primaryKey({ columns: [t.tenantId, t.scope, t.key] }),
    // serves: the workers' sweep of expired keys
    index("run_idempotency_keys_expires_idx").on(t.expiresAt),
  ],
);
