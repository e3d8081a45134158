import { PREPARED, type SqlHandle } from "@runifold/store";

/**
 * Wake-ups for the hot path's writes, sent after their commit instead of inside it.
 *
 * Why not `pg_notify` in the write itself: Postgres serialises the commits of every transaction
 * that sends a NOTIFY (async.c's PreCommit_Notify takes one cluster-wide lock and holds it through
 * the commit's WAL flush), so a NOTIFY in each create and each terminal write turns their commits
 * into a single file, one flush each, with no group commit. Measured on the bench machine with 8
 * connections: 3,500 single-row inserts/s with a NOTIFY in each, 9,400/s without, 7,500–7,900/s
 * with these coalesced notifications beside them (docs/benchmarks.md, "Commits and NOTIFY").
 *
 * So a write on a pool commits on its own, and its notification goes out right after, coalesced
 * per pool: one statement in flight at a time, every notification that arrives meanwhile leaves in
 * the next one (a burst of creates costs one NOTIFY statement, not one each). That statement commits
 * asynchronously (`synchronous_commit` off for it alone): a notification carries no state, so losing
 * one in a crash only means a listener finds the change on its fallback poll, as it would a missed
 * one. The order a reader relies on still holds: the write has committed before anyone is told.
 *
 * Inside a transaction there is no "after commit" for this module to see, so callers that may run
 * in one (createRun) keep the NOTIFY inline there (`isPool`), where Postgres delivers it at commit.
 * A write that is its pool's only one in flight keeps it inline too (`soleWrite`): with nothing
 * beside it there is no commit to serialise against in this process, and the inline NOTIFY reaches
 * the workers one round trip sooner (enqueue → step start on an idle worker).
 */
type Pending = { channels: string[]; payloads: string[]; seen: Set<string> };
type PoolNotifier = { pending: Pending | undefined; busy: boolean; writes: number };

const notifiers = new WeakMap<object, PoolNotifier>();

/** A pool (not a transaction): postgres.js gives only pools `begin`. */
export function isPool(sql: SqlHandle): boolean {
  return "begin" in sql && typeof sql.begin === "function";
}

function notifierOf(sql: SqlHandle): PoolNotifier {
  let notifier = notifiers.get(sql);
  if (!notifier) {
    notifier = { pending: undefined, busy: false, writes: 0 };
    notifiers.set(sql, notifier);
  }
  return notifier;
}

/**
 * Marks a notifying write in flight on a pool until `done()`; `sole` says whether it is the only
 * one (then it may NOTIFY inline). Always false inside a transaction's handle: that is not a pool.
 */
export function soleWrite(sql: SqlHandle): { sole: boolean; done(): void } {
  if (!isPool(sql)) return { sole: false, done: () => {} };
  const notifier = notifierOf(sql);
  notifier.writes++;
  return { sole: notifier.writes === 1, done: () => void notifier.writes-- };
}

/** Queues one notification on `sql` (a pool); it is sent after the current tick, with any others queued by then. */
export function notifyAfterCommit(sql: SqlHandle, channel: string, payload: string): void {
  const notifier = notifierOf(sql);
  notifier.pending ??= { channels: [], payloads: [], seen: new Set() };
  const key = `${channel}\u0000${payload}`;
  if (!notifier.pending.seen.has(key)) {
    notifier.pending.seen.add(key);
    notifier.pending.channels.push(channel);
    notifier.pending.payloads.push(payload);
  }
  if (!notifier.busy) {
    notifier.busy = true;
    queueMicrotask(() => void send(sql, notifier));
  }
}

async function send(sql: SqlHandle, notifier: PoolNotifier): Promise<void> {
  try {
    for (let batch = notifier.pending; batch; batch = notifier.pending) {
      notifier.pending = undefined;
      await sql
        .unsafe(
          `SELECT set_config('synchronous_commit', 'off', true), pg_notify(n.channel, n.payload)
           FROM unnest($1::text[], $2::text[]) AS n(channel, payload)`,
          [batch.channels, batch.payloads],
          PREPARED,
        )
        // A pool that has ended, or a store that is away: the listeners' fallback polls find the change.
        .catch(() => {});
    }
  } finally {
    notifier.busy = false;
  }
}
