import type postgres from "postgres";
import { HANDLE_EXPIRED_SQL } from "./queries/task-columns";

/** How often the followed tasks are probed: the fallback that catches what no notification said. */
export const PROBE_INTERVAL_MS = 2_000;
/** IDs per probe statement: one index scan each, a bounded parameter array. */
const PROBE_CHUNK = 1_000;

/**
 * The fallback poll of a process's followed tasks, batched: one statement every PROBE_INTERVAL_MS
 * for all of them (chunked by PROBE_CHUNK), returning each row's version (`xmin`, new on every
 * UPDATE of the row, so any transition, progress or message write counts) and whether its handle
 * has expired (time alone expires it, with no write and no notification). A task whose stamp moved
 * since the last probe, or that was not seen before (a change between a subscriber's first read and
 * its subscription is caught this way), is reported changed; its subscribers then re-read it. It
 * replaces a re-read per followed task per stream every 2 s (docs/benchmarks.md, listeners at scale):
 * 5,000 idle streams over 1,000 tasks cost one statement per interval instead of 1,000 reads.
 */
export class FollowedProbe {
  private readonly stamps = new Map<string, string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private running = false;

  constructor(
    private readonly sql: postgres.Sql,
    private readonly followed: () => Iterable<string>,
    private readonly onChanged: (taskIds: string[]) => void,
    private readonly onError: (error: Error) => void,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.probe(), PROBE_INTERVAL_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The task is no longer followed: its stamp goes, so following it again starts afresh. */
  forget(taskId: string): void {
    this.stamps.delete(taskId);
  }

  /** One probe round; rounds never overlap (a slow store skips an interval instead of piling up). */
  async probe(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const ids = [...this.followed()];
      const changed: string[] = [];
      for (let at = 0; at < ids.length; at += PROBE_CHUNK) {
        const chunk = ids.slice(at, at + PROBE_CHUNK);
        const rows = await this.sql.unsafe<{ id: string; stamp: string }[]>(
          `SELECT r.id, r.xmin::text || CASE WHEN ${HANDLE_EXPIRED_SQL} THEN ':expired' ELSE '' END AS stamp
           FROM runs r WHERE r.id = ANY($1::uuid[])`,
          [chunk],
        );
        const seen = new Set<string>();
        for (const row of rows) {
          seen.add(row.id);
          if (this.stamps.get(row.id) !== row.stamp) {
            this.stamps.set(row.id, row.stamp);
            changed.push(row.id);
          }
        }
        // A row gone since the last probe (retention deleted it): its subscribers re-read and stop
        // following it. An ID absent from the first probe on (no run has it) changed nothing: its
        // subscribers already read "not found", and waking them every first round is noise.
        for (const id of chunk) {
          const before = this.stamps.get(id);
          if (seen.has(id) || before === "gone") continue;
          this.stamps.set(id, "gone");
          if (before !== undefined) changed.push(id);
        }
      }
      if (changed.length > 0) this.onChanged(changed);
    } catch (error) {
      this.onError(error as Error);
    } finally {
      this.running = false;
    }
  }
}
