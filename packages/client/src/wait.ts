import type { EraDriver } from "./driver";
import { terminalOutcome } from "./normalize";
import type { PollPolicy, TaskOutcome, TaskView, WaitOptions } from "./types";

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
 * when input is required and not answered (`input_required`).
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
  let task = typeof start === "string" ? await driver.getTask(start, options.signal) : start;
  let seen = "";
  const answered = new Set<string>();
  try {
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
        if (!options.onInputRequest) return { kind: "input_required", task, inputRequests: task.inputRequests ?? {} };
        const answer = await driver.answerInput(task, options.onInputRequest, { signal, answered });
        if (answer === "unanswered") return { kind: "input_required", task, inputRequests: task.inputRequests ?? {} };
        if (answer) {
          task = answer;
          continue;
        }
        delay = Math.min(delay, policy.minMs);
      }
      await sleep(delay, signal);
      task = await driver.getTask(task.taskId, signal);
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    if (timer) clearTimeout(timer);
  }
  return options.signal?.aborted ? { kind: "aborted", task } : { kind: "timeout", task };
}
