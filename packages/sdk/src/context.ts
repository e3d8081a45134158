import type { SqlHandle } from "../../../db/client";
import { coerceError, LeaseLost, NonRetryableError, RunSuspended, StoreUnavailable } from "./errors";
import { checkpointStep } from "./ops/checkpoint-step";
import type { RunState } from "./ops/load-run-state";
import { reportProgress } from "./ops/report-progress";
import { suspendForInput } from "./ops/suspend-for-input";
import { suspendForSignal } from "./ops/suspend-for-signal";
import { suspendForTimer } from "./ops/suspend-for-timer";
import type { Lease } from "./ops/types";
import type { InputRequest, InputResponse, SignalResult, StepOptions, WorkflowContext } from "./workflow";

export type ReplayContextDeps = {
  sql: SqlHandle;
  lease: Lease;
  tenantId: string;
  state: RunState;
  signal: AbortSignal;
  /** The database's clock, estimated locally: timers compare against it, not the worker's clock. */
  now: () => number;
  /** Called when the current step starts/ends, so the executor knows what failed. */
  onStep?: (key: string | undefined) => void;
};

/**
 * The `ctx` a workflow receives. On replay, memoized steps return their recorded output without
 * running; every durable wait either returns what was recorded or parks the run and throws
 * `RunSuspended`, which ends this attempt. Keys are unique per run: reusing one is a bug in the
 * workflow and fails it.
 */
export function createReplayContext(deps: ReplayContextDeps): WorkflowContext {
  const { sql, lease, state } = deps;
  const usedKeys = new Set<string>();
  const signalWaits = new Map<string, number>();

  const claimKey = (key: string) => {
    if (!key || key.length > 200) throw new NonRetryableError("step keys must be 1-200 characters");
    if (usedKeys.has(key)) throw new NonRetryableError(`step key "${key}" used twice in one run`);
    usedKeys.add(key);
  };
  const ensureHeld = (held: boolean) => {
    if (!held) throw new LeaseLost("lease lost");
  };

  async function step<T>(key: string, fn: (s: { signal: AbortSignal }) => Promise<T> | T, options?: StepOptions): Promise<T> {
    claimKey(key);
    if (state.steps.has(key)) return state.steps.get(key) as T;
    const retries = options?.retries ?? 2;
    let backoff = options?.backoffMs ?? 100;
    deps.onStep?.(key);
    let output = undefined as T;
    for (let attempt = 0; ; attempt++) {
      if (deps.signal.aborted) throw new LeaseLost("run cancelled or lease lost");
      try {
        output = await fn({ signal: deps.signal });
        break;
      } catch (error) {
        if (error instanceof NonRetryableError || attempt >= retries || deps.signal.aborted) throw error;
        await delay(backoff, deps.signal);
        backoff *= 2;
      }
    }
    ensureHeld(await store(() => checkpointStep(sql, lease, key, output)));
    state.steps.set(key, output ?? null);
    deps.onStep?.(undefined);
    return (output ?? null) as T;
  }

  async function sleep(key: string, ms: number): Promise<void> {
    claimKey(`sleep:${key}`);
    const timer = state.steps.get(`sleep:${key}`) as { wakeAt: string } | undefined;
    const wakeAt = timer ? new Date(timer.wakeAt) : new Date(deps.now() + Math.max(0, ms));
    if (timer && wakeAt.getTime() <= deps.now()) return;
    ensureHeld(await store(() => suspendForTimer(sql, lease, key, wakeAt)));
    throw new RunSuspended(`sleeping until ${wakeAt.toISOString()}`);
  }

  async function waitForSignal<T>(name: string, options?: { timeoutMs?: number }): Promise<SignalResult<T>> {
    const index = signalWaits.get(name) ?? 0;
    signalWaits.set(name, index + 1);
    const stepKey = `signal:${name}#${index}`;
    claimKey(stepKey);
    const recorded = state.steps.get(stepKey) as SignalResult<T> | undefined;
    if (recorded) return recorded;
    let deadline: Date | undefined;
    if (options?.timeoutMs !== undefined) {
      // The deadline itself is memoized so every replay waits for the same instant.
      const at = await step(`deadline:${stepKey}`, () => deps.now() + Math.max(0, options.timeoutMs ?? 0));
      deadline = new Date(at);
    }
    const outcome = await store(() => suspendForSignal(sql, lease, { stepKey, name, deadline }));
    if (outcome.kind === "lease_lost") throw new LeaseLost("lease lost");
    if (outcome.kind === "suspended") throw new RunSuspended(`waiting for signal ${name}`);
    const result: SignalResult<T> =
      outcome.kind === "received" ? { received: true, payload: outcome.payload as T } : { received: false };
    state.steps.set(stepKey, result);
    return result;
  }

  async function requestInputs(requests: Record<string, InputRequest>): Promise<Record<string, InputResponse>> {
    const keys = Object.keys(requests);
    if (keys.length === 0) return {};
    for (const key of keys) claimKey(`input:${key}`);
    if (keys.every((key) => state.answers.has(key))) {
      return Object.fromEntries(keys.map((key) => [key, state.answers.get(key) as InputResponse]));
    }
    const outcome = await store(() => suspendForInput(sql, lease, requests));
    if (outcome.kind === "lease_lost") throw new LeaseLost("lease lost");
    if (outcome.kind === "suspended") throw new RunSuspended(`waiting for input ${keys.join(", ")}`);
    for (const [key, response] of Object.entries(outcome.responses)) state.answers.set(key, response);
    return outcome.responses;
  }

  return {
    runId: lease.runId,
    tenantId: deps.tenantId,
    attempt: lease.attempt,
    signal: deps.signal,
    step,
    sleep,
    waitForSignal,
    requestInputs,
    async requestInput(key, request) {
      const responses = await requestInputs({ [key]: request });
      return responses[key] as InputResponse;
    },
    async progress(progress) {
      ensureHeld(await store(() => reportProgress(sql, lease, progress)));
    },
  };
}

/**
 * Connection-level store errors end the attempt without touching the run; its lease expires and
 * it is retried. Any other database error (bad data, a bug) is not transient and fails the run.
 */
async function store<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if (isTransientStoreError(error)) throw new StoreUnavailable(coerceError(error).message);
    throw error;
  }
}

export function isTransientStoreError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return true; // socket-level failures carry no SQLSTATE
  // 08: connection exception, 57P: operator intervention (shutdown), 53: insufficient resources,
  // 40001/40P01: serialization failure / deadlock. Node errors: ECONNREFUSED, ECONNRESET, ...
  return (
    /^(08|57P|53)/.test(code) ||
    code === "40001" ||
    code === "40P01" ||
    code.startsWith("E") ||
    code === "CONNECTION_CLOSED" ||
    code === "CONNECTION_ENDED" ||
    code === "CONNECTION_DESTROYED" ||
    code === "CONNECT_TIMEOUT"
  );
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
