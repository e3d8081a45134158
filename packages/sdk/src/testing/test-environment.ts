import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import type postgres from "postgres";
import { silentLogger } from "../logger";
import { createRun } from "../ops/create-run";
import { provideInputForTenant } from "../ops/provide-input";
import { sendSignalForTenant } from "../ops/send-signal";
import type { WaitDetail } from "../ops/types";
import { isTerminal, type RunStatus } from "../states";
import { createWorker, type Worker } from "../worker";
import { type AnyWorkflow, createRegistry, type InputRequest, type InputResponse, type WorkflowResult } from "../workflow";
import { advanceRunClocks } from "./advance-time";
import { openTestStore } from "./store";

export type TestEnvironmentOptions = {
  /** The workflows under test; the environment's worker serves exactly these. */
  workflows: AnyWorkflow[];
  /** A Postgres server to create the test database on. Default: an embedded one (optional dependency). */
  databaseUrl?: string;
  /** Where an embedded server keeps its data (default: the OS temp directory). */
  dataRoot?: string;
};

export type RunSnapshot = {
  id: string;
  status: RunStatus;
  /** The input requests waiting for an answer, by key. */
  pendingInputs: Record<string, InputRequest>;
  statusMessage: string | null;
  /** What a parked run waits for: `{ timer: { key, wakeAt } }`, `{ signal: … }` or `{ input: … }`. */
  wait: WaitDetail | null;
};

export type RunOutcome =
  | { status: "completed"; result: WorkflowResult }
  | { status: "failed"; error: { code: number; message: string; data?: unknown } }
  | { status: "cancelled"; reason?: string };

export type HistoryEvent = { type: string; payload: Record<string, unknown>; at: Date };

export type TestEnvironment = {
  readonly sql: postgres.Sql;
  readonly tenantId: string;
  /** Starts a run of `workflow` with `input` (validated by the workflow's zod schema first). */
  start(workflow: AnyWorkflow, input: unknown): Promise<string>;
  /** Waits until the run satisfies `until` (default: terminal), failing with the last state seen. */
  waitFor(runId: string, until?: RunStatus | ((run: RunSnapshot) => boolean), timeoutMs?: number): Promise<RunSnapshot>;
  /** Answers a keyed input request, as a person would through any channel. */
  answer(runId: string, key: string, response: InputResponse, actor?: string): Promise<void>;
  signal(runId: string, name: string, payload?: unknown): Promise<void>;
  /**
   * Skips each parked run (one, or all) to its next timer, of any kind — a sleep, a parked retry
   * backoff, a signal or input timeout, the run's own deadline — so exactly that one fires: every
   * stored instant of the run moves back by the same amount (advance-time.ts), and replay sees the
   * time as having passed. Answers how many runs moved.
   */
  advanceTimers(runId?: string): Promise<number>;
  /** Moves the clock of each run no worker holds (one, or all) forward by `ms`: whatever falls due fires. */
  advanceTime(ms: number, runId?: string): Promise<number>;
  /** The terminal outcome: waits for it first. */
  result(runId: string, timeoutMs?: number): Promise<RunOutcome>;
  history(runId: string): Promise<HistoryEvent[]>;
  close(): Promise<void>;
};

/**
 * A real store and a real worker for workflow tests — what a team needs to test its own workflows
 * the way they run in production (a fresh migrated database, the same claim loop, the same replay),
 * with durable timers under the test's control.
 */
export async function createTestEnvironment(options: TestEnvironmentOptions): Promise<TestEnvironment> {
  const store = await openTestStore(options.databaseUrl, options.dataRoot ?? path.join(tmpdir(), "runifold-sdk-test"));
  const { sql } = store;
  const registry = createRegistry(options.workflows);
  const tenantId = randomUUID();
  await sql`INSERT INTO tenants (id, slug, name) VALUES (${tenantId}, ${`test-${tenantId.slice(0, 8)}`}, 'SDK test environment')`;
  const worker: Worker = createWorker({ sql, registry, logger: silentLogger, pollMs: 50, leaseMs: 5_000, concurrency: 8 });
  await worker.start();

  const snapshot = async (runId: string): Promise<RunSnapshot> => {
    const [row] = await sql<
      {
        id: string;
        status: RunStatus;
        status_message: string | null;
        wait_detail: WaitDetail | null;
        pending: Record<string, InputRequest> | null;
      }[]
    >`
      SELECT r.id, r.status, r.status_message, r.wait_detail,
             (SELECT jsonb_object_agg(i.key, i.request) FROM run_inputs i WHERE i.run_id = r.id AND i.response IS NULL AND i.answered_at IS NULL) AS pending
      FROM runs r WHERE r.id = ${runId}`;
    if (!row) throw new Error(`no run ${runId}`);
    return {
      id: row.id,
      status: row.status,
      statusMessage: row.status_message,
      wait: row.wait_detail,
      pendingInputs: row.pending ?? {},
    };
  };

  const waitFor: TestEnvironment["waitFor"] = async (runId, until, timeoutMs = 10_000) => {
    const matches = (run: RunSnapshot) =>
      until === undefined ? isTerminal(run.status) : typeof until === "string" ? run.status === until : until(run);
    const deadline = Date.now() + timeoutMs;
    let last = await snapshot(runId);
    while (!matches(last)) {
      if (Date.now() > deadline) {
        throw new Error(
          `run ${runId} did not reach ${typeof until === "function" ? "the awaited state" : (until ?? "a terminal state")} in ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
      last = await snapshot(runId);
    }
    return last;
  };

  return {
    sql,
    tenantId,
    async start(workflow, input) {
      const run = await createRun(sql, {
        tenantId,
        workflowName: workflow.name,
        workflowVersion: workflow.version,
        input,
        definition: workflow,
        origin: "engine",
      });
      return run.id;
    },
    waitFor,
    async answer(runId, key, response, actor = "test") {
      const outcome = await provideInputForTenant(sql, { runId, tenantId, responses: { [key]: response }, actor });
      if (!outcome.found) throw new Error(`no run ${runId}`);
      if (!outcome.accepted.includes(key)) throw new Error(`run ${runId} has no open input request "${key}"`);
    },
    async signal(runId, name, payload) {
      if (!(await sendSignalForTenant(sql, { runId, tenantId, name, payload })))
        throw new Error(`run ${runId} cannot take signals (finished or unknown)`);
    },
    advanceTimers: (runId) => advanceRunClocks(sql, { runId, ms: null }),
    advanceTime(ms, runId) {
      if (!(Number.isFinite(ms) && ms >= 0)) throw new Error("advanceTime needs a number of milliseconds ≥ 0");
      return advanceRunClocks(sql, { runId, ms });
    },
    async result(runId, timeoutMs) {
      const run = await waitFor(runId, undefined, timeoutMs);
      const [event] = await sql<{ payload: Record<string, unknown> }[]>`
        SELECT payload FROM run_events WHERE run_id = ${runId} AND type = ${run.status} ORDER BY id DESC LIMIT 1`;
      const payload = event?.payload ?? {};
      if (run.status === "completed") return { status: "completed", result: payload.result as WorkflowResult };
      if (run.status === "failed") return { status: "failed", error: payload.error as { code: number; message: string } };
      return { status: "cancelled", reason: payload.reason as string | undefined };
    },
    async history(runId) {
      const rows = await sql<{ type: string; payload: Record<string, unknown>; at: Date }[]>`
        SELECT type, payload, at FROM run_events WHERE run_id = ${runId} ORDER BY id`;
      return rows.map((row) => ({ type: row.type, payload: row.payload, at: row.at }));
    },
    async close() {
      await worker.stop(2_000);
      await store.close();
    },
  };
}
