import { randomBytes } from "node:crypto";
import os from "node:os";
import { bounded } from "@runifold/store";
import type postgres from "postgres";
import { coerceError } from "./errors";
import { executeRun } from "./executor";
import { installLastResortHandlers } from "./last-resort";
import { coalescedWrites } from "./leased-writes";
import { type Limits, resolveLimits } from "./limits";
import type { Logger } from "./logger";
import { type ClaimedRun, claimRuns } from "./ops/claim-runs";
import { msUntilNextDue } from "./ops/next-due";
import { fleetSlots, heartbeatWorker, markWorkerStopped, registerWorker } from "./ops/register-worker";
import { releaseRuns } from "./ops/release-runs";
import { startSweeps } from "./sweeps";
import { ABORT_CANCELLED, ABORT_STOPPING, observeAttempt } from "./telemetry/attempt-telemetry";
import type { WorkerObserver } from "./telemetry/observer";
import { DEFAULT_TENANT_SHARE, tenantCap } from "./tenant-share";
import { listenForWorker } from "./worker-listen";
import type { WorkflowRegistry } from "./workflow";

export type WorkerOptions = {
  sql: postgres.Sql;
  /**
   * Where claims and lease renewals go; default `sql`. runifold-worker passes a small pool of its
   * own. Keep its commits synchronous (runifold-worker's default): an asynchronous claim or renewal
   * lost in a Postgres crash or failover leaves this worker running a run the store shows as
   * claimable, so another worker may begin a step beside it (docs/architecture.md, "Commit
   * durability per statement"; `RUNIFOLD_LEASE_COMMIT=async` accepts that). Give that pool
   * `LEASE_PLAN_SETTINGS` as its connection settings, as runifold-worker does: without them a claim
   * keeps whatever plan Postgres first made for it, and one made on a young store or a small
   * backlog reads every live run on each claim once the backlog grows (claim-runs.ts).
   */
  leaseSql?: postgres.Sql;
  registry: WorkflowRegistry;
  logger: Logger;
  workerId?: string;
  concurrency?: number;
  /** A crashed worker's runs are claimable again this long after its last checkpoint or heartbeat. */
  leaseMs?: number;
  /** Fallback poll when no NOTIFY arrives (missed notifications, timers). */
  pollMs?: number;
  /**
   * How often the worker checks that its LISTEN connection still hears (a NOTIFY to a private
   * channel, expected back within as long); a dead one is replaced and the worker catches up
   * (worker-listen.ts). Default 5 s.
   */
  listenHeartbeatMs?: number;
  registrationHeartbeatMs?: number;
  /** Size limits of what workflows store (limits.ts). */
  limits?: Partial<Limits>;
  /**
   * Installs the process-wide last-resort handlers (last-resort.ts) while the worker runs, so a
   * workflow's unhandled rejection fails its attempt instead of the process. Default true.
   */
  lastResortHandlers?: boolean;
  /** Runs claimable this long without an online worker serving their version get a status message. Default 10 s. */
  strandedAfterMs?: number;
  /** Told about claims, attempts and steps, for metrics (createWorkerMetrics binds it to prom-client). */
  observer?: WorkerObserver;
  /**
   * The share of the fleet's slots (every online worker's concurrency) one tenant may hold when it has
   * no `max_concurrent_runs` of its own; 1 = no cap. Default 0.75 (tenant-share.ts).
   */
  tenantShare?: number;
};

/** The longest a claim for a few free slots waits for more while a backlog waits (see `backlog`). */
const GATHER_MS = 2;

export type Worker = {
  readonly id: string;
  start(): Promise<void>;
  /** Graceful: stop claiming, let active runs reach a boundary for up to `graceMs`, release the rest. */
  stop(graceMs?: number): Promise<void>;
  activeRuns(): number;
};

type ActiveRun = { attempt: number; abort: AbortController; done: Promise<unknown> };

/**
 * A worker drains the store: claims with SKIP LOCKED, runs attempts concurrently up to its
 * concurrency, wakes on LISTEN/NOTIFY and polls as a fallback, and never claims a workflow
 * version it does not serve. It also runs the store's sweeps (sweeps.ts): run deadlines, stranded
 * runs, expired idempotency keys.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { sql, registry, logger } = options;
  const id = options.workerId ?? `${os.hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const concurrency = options.concurrency ?? 16;
  const leaseMs = options.leaseMs ?? 30_000;
  const pollMs = options.pollMs ?? 1_000;
  const limits = resolveLimits(options.limits);
  const keys = registry.keys();
  const leaseSql = options.leaseSql ?? sql;
  const tenantShare = options.tenantShare ?? DEFAULT_TENANT_SHARE;
  // Until the store says how big the fleet is, this worker alone; refreshed with every heartbeat.
  let tenantLimit = tenantCap(concurrency, tenantShare);
  const writes = coalescedWrites(sql);
  const active = new Map<string, ActiveRun>();
  const timers: NodeJS.Timeout[] = [];
  const stoppers: (() => Promise<void> | void)[] = [];
  let wakeTimer: NodeJS.Timeout | undefined;
  let filling: Promise<void> | undefined;
  let refill = false;
  let stopping = false;
  // Whether the next drain should ask the store when the next run becomes claimable (scheduleNextWake).
  let wakeCheckDue = true;
  // Gathered claims: while a backlog waits (the last claim filled every free slot), a claim for fewer
  // than a quarter of the slots waits up to GATHER_MS for more to free. A claim costs the store about
  // the same for one run as for eight (its index probes, not its rows), so under load this halves the
  // claims per run; with no backlog, or nothing running, a claim goes at once.
  const gatherSlots = Math.max(1, Math.floor(concurrency / 4));
  let backlog = false;
  let gatherTimer: NodeJS.Timeout | undefined;

  function fill(): Promise<void> {
    if (filling) {
      refill = true;
      return filling;
    }
    filling = drain().finally(() => {
      filling = undefined;
    });
    return filling;
  }

  async function drain(): Promise<void> {
    try {
      do {
        refill = false;
        while (!stopping && active.size < concurrency) {
          const limit = concurrency - active.size;
          if (backlog && limit < gatherSlots && active.size > 0) {
            gatherTimer ??= setTimeout(() => {
              gatherTimer = undefined;
              backlog = false;
              void fill();
            }, GATHER_MS);
            break;
          }
          const claimSentAt = performance.now();
          // Bounded by the lease it asks for: an answer later than that brings only leases already
          // over by this worker's clock (the executor counts them from claimSentAt and would run
          // none), while a claim that never answers — postgres.js can leave a query on a connection
          // killed under it unsettled for ever, as when a primary dies — would otherwise hold `filling`
          // and stop this worker claiming at all. The next poll claims on another connection.
          const claimed = await bounded(
            claimRuns(leaseSql, {
              workerId: id,
              workflowKeys: keys,
              limit,
              leaseMs,
              exclude: [...active.keys()],
              tenantLimit,
            }),
            leaseMs,
            "claim",
          );
          backlog = claimed.length === limit;
          for (const run of claimed) launch(run, claimSentAt);
          if (claimed.length < limit || claimed.length === 0) break;
        }
      } while (refill && !stopping);
      // Saturated: the next completion calls fill() again, which reschedules; skipping the query here
      // saves one round trip per NOTIFY while busy.
      if (!stopping && active.size < concurrency && wakeCheckDue) {
        wakeCheckDue = false;
        await scheduleNextWake();
      }
    } catch (error) {
      logger.warn("claim failed; will retry on the next poll", { error: coerceError(error).message });
    }
  }

  function launch(run: ClaimedRun, claimSentAt: number) {
    const definition = registry.get(run.workflow_name, run.workflow_version);
    if (!definition) return; // unreachable: claims filter on served keys
    // Claimed while stopping (a claim in flight when stop() began): stop() releases it.
    if (stopping) return;
    const abort = new AbortController();
    const entry: ActiveRun = { attempt: run.attempt, abort, done: Promise.resolve() };
    const observed = { run, logger, observer: options.observer, signal: abort.signal };
    entry.done = observeAttempt(observed, (runLogger) =>
      executeRun(
        { sql, leaseSql, writes, logger: runLogger, workerId: id, leaseMs, limits, observer: options.observer },
        run,
        definition,
        abort,
        claimSentAt,
      ),
    )
      .then((end) => {
        // A parked run (a timer, a backoff) or one handed back may be claimable soon: look again.
        if (end === "suspended" || end === "abandoned") wakeCheckDue = true;
      })
      .catch((error) => logger.error("executor crashed", { runId: run.id, error: coerceError(error).message }))
      .finally(() => {
        // Only this attempt's own entry: a later attempt of the same run is never dropped by an earlier one's end.
        if (active.get(run.id) === entry) active.delete(run.id);
        if (!stopping) void fill();
      });
    active.set(run.id, entry);
  }

  /**
   * Timers: sleep exactly until the next parked run comes due (by the database's clock). Asked after
   * a drain only when something may have moved that instant — this worker parked or gave back a
   * run, or a poll interval passed (other workers' timers) — not after every completion: under load
   * that query was the store's largest cost per run. Crashed workers' leases come back through the
   * sweep, which wakes the workers of their versions (promote-due-runs.ts).
   */
  async function scheduleNextWake() {
    const wait = await msUntilNextDue(sql, keys);
    if (wakeTimer) clearTimeout(wakeTimer);
    if (wait === undefined) return;
    if (wait < pollMs)
      wakeTimer = setTimeout(() => {
        wakeCheckDue = true; // the run after this one may be due soon too
        void fill();
      }, Math.max(0, wait) + 5);
  }

  /** The fleet may have grown or shrunk since the last heartbeat: so has a tenant's default cap. */
  async function heartbeat() {
    await heartbeatWorker(sql, id);
    tenantLimit = tenantCap(Math.max(concurrency, await fleetSlots(sql)), tenantShare);
  }

  return {
    id,
    activeRuns: () => active.size,
    async start() {
      await registerWorker(sql, { workerId: id, hostname: os.hostname(), pid: process.pid, workflows: keys, concurrency });
      tenantLimit = tenantCap(Math.max(concurrency, await fleetSlots(sql)), tenantShare);
      if (options.lastResortHandlers !== false) stoppers.push(installLastResortHandlers(logger));
      // Wake-ups and cancels; on every (re)subscribe it drains, catching up on anything missed meanwhile.
      const listening = listenForWorker(sql, {
        served: new Set(keys),
        wake: () => void fill(),
        cancel: (runId) => active.get(runId)?.abort.abort(new Error(ABORT_CANCELLED)),
        activeRunIds: () => [...active.keys()],
        logger,
        heartbeatMs: options.listenHeartbeatMs,
      });
      stoppers.push(() => listening.stop());
      await listening.ready;
      const sweeps = startSweeps({
        sql,
        logger,
        intervalMs: Math.max(pollMs, 1_000),
        workflowKeys: keys,
        strandedAfterMs: options.strandedAfterMs,
      });
      stoppers.push(() => sweeps.stop());
      timers.push(
        setInterval(() => {
          wakeCheckDue = true;
          void fill();
        }, pollMs),
      );
      timers.push(
        setInterval(() => {
          heartbeat().catch((error) => logger.warn("heartbeat failed", { error: coerceError(error).message }));
        }, options.registrationHeartbeatMs ?? 5_000),
      );
      logger.info("worker started", { workerId: id, workflows: keys, concurrency });
      await fill();
    },
    async stop(graceMs = 10_000) {
      stopping = true;
      for (const timer of timers) clearInterval(timer);
      if (wakeTimer) clearTimeout(wakeTimer);
      if (gatherTimer) clearTimeout(gatherTimer);
      await Promise.all(
        stoppers.map((fn) =>
          Promise.resolve()
            .then(fn)
            .catch(() => {}),
        ),
      );
      // A claim in flight commits before the release below, so what it claimed is released too.
      await filling?.catch(() => {});
      const drained = Promise.all([...active.values()].map((entry) => entry.done));
      await Promise.race([drained, new Promise((r) => setTimeout(r, graceMs))]);
      for (const entry of active.values()) entry.abort.abort(new Error(ABORT_STOPPING));
      // MUST release whatever is still leased, or those runs wait a full lease before anyone resumes them.
      const released = await releaseRuns(sql, id).catch(() => []);
      await markWorkerStopped(sql, id).catch(() => {});
      logger.info("worker stopped", { workerId: id, released: released.length });
    },
  };
}
