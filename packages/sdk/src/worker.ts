import { randomBytes } from "node:crypto";
import os from "node:os";
import type postgres from "postgres";
import { CHANNELS } from "./channels";
import { coerceError } from "./errors";
import { executeRun } from "./executor";
import type { Logger } from "./logger";
import { type ClaimedRun, claimRuns, nextClaimableAt } from "./ops/claim-runs";
import { heartbeatWorker, markWorkerStopped, registerWorker } from "./ops/register-worker";
import { releaseRuns } from "./ops/release-runs";
import type { WorkflowRegistry } from "./workflow";

export type WorkerOptions = {
  sql: postgres.Sql;
  registry: WorkflowRegistry;
  logger: Logger;
  workerId?: string;
  concurrency?: number;
  /** A crashed worker's runs are claimable again this long after its last checkpoint or heartbeat. */
  leaseMs?: number;
  /** Fallback poll when no NOTIFY arrives (missed notifications, timers). */
  pollMs?: number;
  registrationHeartbeatMs?: number;
};

export type Worker = {
  readonly id: string;
  start(): Promise<void>;
  /** Graceful: stop claiming, let active runs reach a boundary for up to `graceMs`, release the rest. */
  stop(graceMs?: number): Promise<void>;
  activeRuns(): number;
};

/**
 * A worker drains the store: claims with SKIP LOCKED, runs attempts concurrently up to its
 * concurrency, wakes on LISTEN/NOTIFY and polls as a fallback, and never claims a workflow
 * version it does not serve.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { sql, registry, logger } = options;
  const id = options.workerId ?? `${os.hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const concurrency = options.concurrency ?? 16;
  const leaseMs = options.leaseMs ?? 30_000;
  const pollMs = options.pollMs ?? 1_000;
  const keys = registry.keys();
  const active = new Map<string, { abort: AbortController; done: Promise<unknown> }>();
  const timers: NodeJS.Timeout[] = [];
  const unlisten: (() => Promise<void>)[] = [];
  let wakeTimer: NodeJS.Timeout | undefined;
  let filling = false;
  let refill = false;
  let stopping = false;

  async function fill(): Promise<void> {
    if (filling) {
      refill = true;
      return;
    }
    filling = true;
    try {
      do {
        refill = false;
        while (!stopping && active.size < concurrency) {
          const claimed = await claimRuns(sql, { workerId: id, workflowKeys: keys, limit: concurrency - active.size, leaseMs });
          for (const run of claimed) launch(run);
          if (claimed.length < concurrency - active.size || claimed.length === 0) break;
        }
      } while (refill && !stopping);
      // Saturated: the next completion calls fill() again, which reschedules; skipping the query here
      // saves one round trip per NOTIFY while busy.
      if (!stopping && active.size < concurrency) await scheduleNextWake();
    } catch (error) {
      logger.warn("claim failed; will retry on the next poll", { error: coerceError(error).message });
    } finally {
      filling = false;
    }
  }

  function launch(run: ClaimedRun) {
    const definition = registry.get(run.workflow_name, run.workflow_version);
    const abort = new AbortController();
    if (!definition) return; // unreachable: claims filter on served keys
    const done = executeRun({ sql, logger, workerId: id, leaseMs }, run, definition, abort)
      .catch((error) => logger.error("executor crashed", { runId: run.id, error: coerceError(error).message }))
      .finally(() => {
        active.delete(run.id);
        if (!stopping) void fill();
      });
    active.set(run.id, { abort, done });
  }

  /** Timers and lease expiries: sleep exactly until the next run becomes claimable. */
  async function scheduleNextWake() {
    const next = await nextClaimableAt(sql, keys);
    if (wakeTimer) clearTimeout(wakeTimer);
    if (!next) return;
    const wait = next.getTime() - Date.now();
    if (wait < pollMs) wakeTimer = setTimeout(() => void fill(), Math.max(0, wait) + 5);
  }

  return {
    id,
    activeRuns: () => active.size,
    async start() {
      await registerWorker(sql, { workerId: id, hostname: os.hostname(), pid: process.pid, workflows: keys, concurrency });
      const served = new Set(keys);
      const wake = await sql.listen(
        CHANNELS.wake,
        (payload) => {
          if (served.has(payload)) void fill();
        },
        () => void fill(), // on (re)connect: catch up on anything missed while disconnected
      );
      const cancel = await sql.listen(CHANNELS.cancel, (runId) => {
        active.get(runId)?.abort.abort(new Error("cancelled"));
      });
      unlisten.push(wake.unlisten, cancel.unlisten);
      timers.push(setInterval(() => void fill(), pollMs));
      timers.push(
        setInterval(() => {
          heartbeatWorker(sql, id).catch((error) => logger.warn("heartbeat failed", { error: coerceError(error).message }));
        }, options.registrationHeartbeatMs ?? 5_000),
      );
      logger.info("worker started", { workerId: id, workflows: keys, concurrency });
      await fill();
    },
    async stop(graceMs = 10_000) {
      stopping = true;
      for (const timer of timers) clearInterval(timer);
      if (wakeTimer) clearTimeout(wakeTimer);
      await Promise.all(unlisten.map((fn) => fn().catch(() => {})));
      const drained = Promise.all([...active.values()].map((entry) => entry.done));
      await Promise.race([drained, new Promise((r) => setTimeout(r, graceMs))]);
      for (const entry of active.values()) entry.abort.abort(new Error("worker stopping"));
      // MUST release whatever is still leased, or those runs wait a full lease before anyone resumes them.
      const released = await releaseRuns(sql, id).catch(() => []);
      await markWorkerStopped(sql, id).catch(() => {});
      logger.info("worker stopped", { workerId: id, released: released.length });
    },
  };
}
