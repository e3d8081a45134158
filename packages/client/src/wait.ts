import type { EraDriver } from "./driver";
import { isTransientFailure } from "./errors";
import { terminalOutcome } from "./normalize";
import type { InputRequestHandler, PollPolicy, TaskOutcome, TaskView, WaitOptions } from "./types";

/** Reads in a row that may fail transiently before a wait or listen gives up with the last error. */
export const MAX_TRANSIENT_RETRIES = 10;

/**
 * `read()`, retried with exponential backoff (policy.minMs·2ⁿ, at most policy.maxMs) while it fails
 * transiently (isTransientFailure: no answer, 5xx, 429) and `signal` has not fired (review3 D11).
 */
export async function withRetries<T>(read: () => Promise<T>, policy: PollPolicy, signal?: AbortSignal): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (signal?.aborted || !isTransientFailure(error) || attempt >= MAX_TRANSIENT_RETRIES) throw error;
      await sleep(Math.min(policy.minMs * 2 ** attempt, policy.maxMs), signal);
    }
  }
}

/** Settles with `work`, or rejects with the signal's reason as soon as it fires. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * The caller's handler under the wait's signal: it is given the signal, and the wait stops waiting
 * for it when the signal fires — an answer that comes later is never sent (review3 D1).
 */
function boundedHandler(handler: InputRequestHandler, signal: AbortSignal): InputRequestHandler {
  return (key, request, task) => unlessAborted(Promise.resolve(handler(key, request, task, { signal })), signal);
}

/**
 * How long to sleep before the next `tasks/get`: the server's recommended interval bounded by
 * the client's policy, never past the wait's deadline, and never past the moment the task handle
 * expires (`createdAt + ttlMs`).
 */
export function pollDelay(task: TaskView, policy: PollPolicy, deadlineAt?: number, now = Date.now()): number {
  let ms = Math.min(policy.maxMs, Math.max(policy.minMs, task.pollIntervalMs ?? policy.defaultMs));
  if (deadlineAt !== undefined) ms = Math.min(ms, Math.max(0, deadlineAt - now));
  const created = Date.parse(task.createdAt);
  if (task.ttlMs !== null && Number.isFinite(created)) ms = Math.min(ms, Math.max(policy.minMs, created + task.ttlMs - now));
  return ms;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What a caller sees change: status, message, outstanding keys, result. */
function fingerprint(task: TaskView): string {
  return JSON.stringify([task.status, task.statusMessage, Object.keys(task.inputRequests ?? {}), task.result, task.error]);
}

/**
 * Follows a task until it is terminal, answering input through `onInputRequest` when given.
 * Ends early, WITHOUT cancelling the task, on the deadline (`timeout`), on abort (`aborted`), or
 * when input is required and not answered (`input_required`). The deadline is one operation
 * deadline (review3 D1): it bounds the first read, every read after it and the input handler alike.
 * Reads that fail transiently (a 503, the network) are retried with backoff within it (D11).
 */
export async function waitForTask(
  driver: EraDriver,
  start: TaskView | string,
  options: WaitOptions,
  policy: PollPolicy,
): Promise<TaskOutcome> {
  const deadline = new AbortController();
  const deadlineAt = options.deadlineMs === undefined ? undefined : Date.now() + Math.max(0, options.deadlineMs);
  const timer = deadlineAt === undefined ? undefined : setTimeout(() => deadline.abort(), Math.max(0, deadlineAt - Date.now()));
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  // unlessAborted: a custom fetch that ignores the signal must not hold the wait past its deadline.
  const read = (taskId: string) =>
    unlessAborted(
      withRetries(() => driver.getTask(taskId, signal), policy, signal),
      signal,
    );
  const onInputRequest = options.onInputRequest && boundedHandler(options.onInputRequest, signal);
  let task: TaskView | undefined = typeof start === "string" ? undefined : start;
  let seen = "";
  const answered = new Set<string>();
  try {
    task ??= await read(start as string);
    for (;;) {
      const print = fingerprint(task);
      if (print !== seen) {
        seen = print;
        options.onUpdate?.(task);
      }
      const outcome = terminalOutcome(task);
      if (outcome) return outcome;
      if (signal.aborted) break;
      let delay = pollDelay(task, policy, deadlineAt);
      if (task.status === "input_required") {
        if (!onInputRequest) return { kind: "input_required", task, inputRequests: task.inputRequests ?? {} };
        const answer = await driver.answerInput(task, onInputRequest, { signal, answered });
        if (answer === "unanswered") return { kind: "input_required", task, inputRequests: task.inputRequests ?? {} };
        if (answer) {
          task = answer;
          continue;
        }
        delay = Math.min(delay, policy.minMs);
      }
      await sleep(delay, signal);
      task = await read(task.taskId);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    if (timer) clearTimeout(timer);
  }
  // The deadline came before even the first read: the task as the caller named it.
  const last = task ?? unreadTask(start as string, driver.era);
  return options.signal?.aborted ? { kind: "aborted", task: last } : { kind: "timeout", task: last };
}

/** A task no read answered before the wait ended: its ID, and nothing claimed about its state. */
function unreadTask(taskId: string, era: TaskView["era"]): TaskView {
  return { taskId, status: "working", createdAt: "", lastUpdatedAt: "", ttlMs: null, era, wireStatus: "working" };
}
