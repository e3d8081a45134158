/**
 * Re-reads of one task shared by the subscribers of one process (task-feed.ts): five listen streams
 * of one credential on one task woken by one NOTIFY make one read, not five, and their fallback
 * polls share a read made moments before. A read is shared only with callers that could not have
 * missed anything by taking it: it started after the task's last notification (and after the last
 * reconnect, which stands for every task), after the caller's `notBefore` (its previous read ended:
 * one caller's reads never go back in store order), and it is at most `maxAgeMs` old. Who may see the result
 * is part of the key (the caller's tenant and credential), never decided here.
 */
/** performance.now() times: the oldest start a caller accepts, and how old a shared read may be. */
export type Freshness = { notBefore: number; maxAgeMs: number };

type Entry = { result: Promise<unknown>; seq: number; startedAt: number };

export class SharedReads {
  private seq = 0;
  /** Sequence number of the last reconnect: a read older than it may have missed any task's change. */
  private floor = 0;
  private readonly notified = new Map<string, number>();
  private readonly reads = new Map<string, Map<string, Entry>>();

  /** A NOTIFY for `taskId` arrived: reads started before it are stale. Call before waking subscribers. */
  changed(taskId: string) {
    this.notified.set(taskId, ++this.seq);
  }

  /** The LISTEN connection came back: any read started before may have missed a change. */
  changedAll() {
    this.floor = ++this.seq;
  }

  /** The task has no subscribers left. */
  forget(taskId: string) {
    this.notified.delete(taskId);
    this.reads.delete(taskId);
  }

  /** `run`'s result, or that of a read of the same `key` and task that is still fresh (see above). */
  read<T>(taskId: string, key: string, fresh: Freshness, run: () => Promise<T>): Promise<T> {
    const now = performance.now();
    const since = Math.max(this.floor, this.notified.get(taskId) ?? 0);
    let forTask = this.reads.get(taskId);
    const entry = forTask?.get(key);
    if (entry && entry.seq >= since && entry.startedAt > fresh.notBefore && now - entry.startedAt < fresh.maxAgeMs)
      return entry.result as Promise<T>;
    const started: Entry = { result: run(), seq: this.seq, startedAt: now };
    if (!forTask) {
      forTask = new Map();
      this.reads.set(taskId, forTask);
    }
    forTask.set(key, started);
    // A failed read is never handed to a later caller.
    started.result.catch(() => {
      if (this.reads.get(taskId)?.get(key) === started) this.reads.get(taskId)?.delete(key);
    });
    return started.result as Promise<T>;
  }
}
