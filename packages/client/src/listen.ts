import type { EraDriver } from "./driver";
import { isTransientFailure, McpProtocolError } from "./errors";
import { isTerminal, type PollPolicy, type TaskView } from "./types";
import { pollDelay, sleep, withRetries } from "./wait";

export type ListenOptions = { signal?: AbortSignal };

/** Consecutive failed reconnects (stream or reads) before listening gives up with the last error. */
const MAX_RECONNECTS = 10;

/**
 * The most task IDs one subscription names: Runifold refuses more than 100 per subscriptions/listen
 * with -32602, and a client must not lose its listen to that (review3 D2); more IDs are split over
 * several subscriptions, followed together.
 */
export const MAX_IDS_PER_SUBSCRIPTION = 100;

/**
 * Protocol answers end the listen; anything else (network, a cut stream) is a disconnect worth
 * retrying — and so is the server's transient outage answer (503 + -32603, review3 D11).
 */
function isDisconnect(error: unknown): boolean {
  return !(error instanceof McpProtocolError) || error.kind === "transport" || error.kind === "http" || isTransientFailure(error);
}

/**
 * Snapshots of the given tasks: each one's current state first, then only changes, until every
 * task is terminal (then the iterator ends). Uses `subscriptions/listen` where the peer can push,
 * polling `tasks/get` otherwise; more than MAX_IDS_PER_SUBSCRIPTION IDs are followed as several
 * subscriptions at once. A dropped stream is resumed by reading the current state of each task (so
 * no change is lost) and listening again. Aborting ends the iteration quietly.
 */
export async function* listenToTasks(
  driver: EraDriver,
  taskIds: string[],
  options: ListenOptions,
  policy: PollPolicy,
): AsyncGenerator<TaskView> {
  const unique = [...new Set(taskIds)];
  if (unique.length <= MAX_IDS_PER_SUBSCRIPTION) return yield* listenToChunk(driver, unique, options, policy);
  const chunks: string[][] = [];
  for (let i = 0; i < unique.length; i += MAX_IDS_PER_SUBSCRIPTION) chunks.push(unique.slice(i, i + MAX_IDS_PER_SUBSCRIPTION));
  // Their own signal, so a consumer that stops early closes every subscription, not only its own wait.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  try {
    yield* merge(chunks.map((chunk) => listenToChunk(driver, chunk, { signal }, policy)));
  } finally {
    stop.abort();
  }
}

/** The values of several iterators as they come; ends when all have ended, and closes the rest if the consumer stops. */
async function* merge<T>(iterators: AsyncGenerator<T>[]): AsyncGenerator<T> {
  const next = (index: number) => (iterators[index] as AsyncGenerator<T>).next().then((step) => ({ index, step }));
  const pending = new Map(iterators.map((_, index) => [index, next(index)] as const));
  try {
    while (pending.size > 0) {
      const { index, step } = await Promise.race(pending.values());
      if (step.done) pending.delete(index);
      else {
        pending.set(index, next(index));
        yield step.value;
      }
    }
  } finally {
    // Not awaited: a pending read ends on its own (the caller aborts the subscriptions' signal).
    for (const iterator of iterators) void iterator.return(undefined).catch(() => {});
  }
}

async function* listenToChunk(
  driver: EraDriver,
  taskIds: string[],
  options: ListenOptions,
  policy: PollPolicy,
): AsyncGenerator<TaskView> {
  const active = new Set(taskIds);
  const latest = new Map<string, TaskView>();
  const sent = new Map<string, string>();
  const fresh = (task: TaskView): boolean => {
    if (!active.has(task.taskId)) return false;
    latest.set(task.taskId, task);
    if (isTerminal(task.status)) active.delete(task.taskId);
    const print = JSON.stringify(task);
    if (sent.get(task.taskId) === print) return false;
    sent.set(task.taskId, print);
    return true;
  };
  async function* readAll() {
    for (const taskId of [...active]) {
      const task = await withRetries(() => driver.getTask(taskId, options.signal), policy, options.signal);
      if (fresh(task)) yield task;
    }
  }
  try {
    if (!driver.listen || !driver.tasksAvailable) {
      yield* readAll();
      while (active.size > 0) {
        const delays = [...active].map((id) => latest.get(id)).map((task) => (task ? pollDelay(task, policy) : policy.defaultMs));
        await sleep(Math.min(...delays), options.signal);
        yield* readAll();
      }
      return;
    }
    let failures = 0;
    while (active.size > 0) {
      try {
        for await (const event of driver.listen([...active], options.signal)) {
          if (event.type === "ack") {
            const missing = [...active].filter((id) => !event.taskIds.includes(id));
            if (missing.length > 0)
              throw new McpProtocolError({ message: `Task not found: ${missing.join(", ")}`, code: -32602 });
            failures = 0;
          } else if (fresh(event.task)) {
            yield event.task;
          }
          if (active.size === 0) return;
        }
      } catch (error) {
        if (options.signal?.aborted || !isDisconnect(error) || ++failures > MAX_RECONNECTS) throw error;
      }
      if (active.size === 0) return;
      // The stream ended or broke with tasks still active: catch up on their state, then listen again.
      for (;;) {
        await sleep(Math.min(policy.minMs * 2 ** failures, policy.maxMs), options.signal);
        try {
          yield* readAll();
          break;
        } catch (error) {
          if (options.signal?.aborted || !isDisconnect(error) || ++failures > MAX_RECONNECTS) throw error;
        }
      }
    }
  } catch (error) {
    if (options.signal?.aborted) return;
    throw error;
  }
}
