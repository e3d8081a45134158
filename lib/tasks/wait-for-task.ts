import type postgres from "postgres";
import { readTaskRecord, type TaskRecord } from "./queries/task-record";
import { getTaskFeed } from "./task-feed";

/**
 * Waits until `done(record)` holds, re-reading on every change notification and at least every
 * `pollMs` (the fallback when a notification is missed). Resolves with the last record read, or
 * undefined if the task vanished; stops early at `deadline` or when `signal` aborts.
 */
export async function waitForTask(
  sql: postgres.Sql,
  params: {
    tenantId: string;
    taskId: string;
    done: (record: TaskRecord) => boolean;
    deadline?: number;
    signal?: AbortSignal;
    pollMs?: number;
    /** How the waiter sees each record read (an MCP caller: task-binding.ts presentBoundTask). */
    view?: (record: TaskRecord) => Promise<TaskRecord | undefined>;
  },
): Promise<TaskRecord | undefined> {
  const feed = await getTaskFeed(sql);
  let wake: () => void = () => {};
  const unsubscribe = feed.subscribe(params.taskId, () => wake());
  try {
    for (;;) {
      const read = await readTaskRecord(sql, params);
      const record = read && params.view ? await params.view(read) : read;
      if (!record || params.done(record)) return record;
      const remaining = (params.deadline ?? Number.POSITIVE_INFINITY) - Date.now();
      if (remaining <= 0 || params.signal?.aborted) return record;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, Math.min(remaining, params.pollMs ?? 2_000));
        params.signal?.addEventListener("abort", finish, { once: true });
        wake = finish;
        function finish() {
          clearTimeout(timer);
          params.signal?.removeEventListener("abort", finish);
          wake = () => {};
          resolve();
        }
      });
    }
  } finally {
    unsubscribe();
  }
}
