import { CHANNELS, createLogger, type LogLevel, taskIdsOf } from "@runifold/sdk";
import { sessionPool, type WatchedListen, watchedListen } from "@runifold/store";
import type postgres from "postgres";
import { FollowedProbe } from "./followed-probe";
import { isUuid } from "./queries/task-detail";
import { type Freshness, SharedReads } from "./shared-reads";

type Listener = () => void;

/**
 * One LISTEN connection per process fanned out to in-process subscribers by task ID. Subscribers
 * re-read the store on every call: a notification only says "look again", it never carries state,
 * so a lost or duplicated one cannot show a transition the store did not commit. On reconnect every
 * subscriber is poked, since notifications sent while disconnected are gone.
 *
 * The LISTEN runs on the pool's session pool (RUNIFOLD_DB_POOLER, @runifold/store pooler.ts): behind
 * a transaction-mode pooler the direct URL's, and without one nothing listens — LISTEN through such
 * a pooler succeeds and then delivers nothing — so every waiter lives on its own polling fallback.
 */
export type TaskFeed = {
  subscribe(taskId: string, listener: Listener): () => void;
  /**
   * A subscriber's re-read of `taskId`, shared with the other subscribers of this process that ask
   * with the same `key` (who may see the result: tenant and credential) while it is fresh — started
   * after the task's last notification and after `fresh.notBefore`, less than `fresh.maxAgeMs` ago
   * (shared-reads.ts). Without LISTEN (polling only) every call reads.
   */
  read<T>(taskId: string, key: string, fresh: Freshness, run: () => Promise<T>): Promise<T>;
  /**
   * True when the feed itself polls its followed tasks (followed-probe.ts: one statement per interval
   * for all of them) and wakes a subscriber whenever its task changed, notified or not: a subscriber
   * then needs no fallback re-read of its own. False without LISTEN: subscribers poll.
   */
  probes: boolean;
};

const feeds = new WeakMap<postgres.Sql, Promise<TaskFeed>>();
const feedStates = new WeakMap<postgres.Sql, WatchedListen>();

/** Whether this process's task feed on `sql` hears notifications now, and how often it re-subscribed (health, metrics). */
export function taskFeedState(sql: postgres.Sql): { listening: boolean; resubscribes: number } | undefined {
  const state = feedStates.get(sql);
  return state && { listening: state.live(), resubscribes: state.resubscribes() };
}

export function getTaskFeed(sql: postgres.Sql): Promise<TaskFeed> {
  let feed = feeds.get(sql);
  if (!feed) {
    feed = createTaskFeed(sql);
    feeds.set(sql, feed);
    feed.catch(() => feeds.delete(sql));
  }
  return feed;
}

/** Behind a transaction pooler without a direct URL: subscribers are never woken, they poll. */
const POLLING_ONLY: TaskFeed = { subscribe: () => () => {}, read: (_taskId, _key, _fresh, run) => run(), probes: false };

/** The first LISTEN may take this long (an outage at start); subscribers poll meanwhile and are poked once it is in place. */
const FIRST_LISTEN_WAIT_MS = 2_000;

async function createTaskFeed(pool: postgres.Sql): Promise<TaskFeed> {
  const sql = sessionPool(pool);
  if (!sql) return POLLING_ONLY;
  const listeners = new Map<string, Set<Listener>>();
  const shared = new SharedReads();
  const wake = (taskId: string) => {
    const set = listeners.get(taskId);
    if (!set) return;
    shared.changed(taskId);
    for (const listener of set) listener();
  };
  const pokeAll = () => {
    shared.changedAll();
    for (const set of listeners.values()) for (const listener of set) listener();
  };
  // A watched LISTEN (@runifold/store watchedListen): a connection that closed or stopped hearing its
  // heartbeat (a failover, a killed backend) is replaced, and every subscriber re-reads once it is.
  const logger = createLogger("task-feed", (process.env.RUNIFOLD_LOG_LEVEL as LogLevel | undefined) ?? "info");
  const listening = watchedListen(
    sql,
    {
      [CHANNELS.task]: (payload) => {
        for (const taskId of taskIdsOf(payload)) wake(taskId);
      },
    },
    {
      onListen: pokeAll,
      onReplace: (reason) => logger.warn("LISTEN connection replaced; subscribers re-read once it is back", { reason }),
    },
  );
  feedStates.set(pool, listening);
  // The fallback for what no notification said (a write path that sent none, a handle expiring with
  // time), on the main pool: one statement per interval for every followed task of this process.
  const probe = new FollowedProbe(
    pool,
    () => [...listeners.keys()].filter(isUuid),
    (taskIds) => {
      for (const taskId of taskIds) wake(taskId);
    },
    (error) => logger.warn("followed-task probe skipped: store unavailable", { error: error.message }),
  );
  probe.start();
  await Promise.race([listening.ready, new Promise((r) => setTimeout(r, FIRST_LISTEN_WAIT_MS).unref())]);
  return {
    subscribe(taskId, listener) {
      let set = listeners.get(taskId);
      if (!set) {
        set = new Set();
        listeners.set(taskId, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(taskId) === set) {
          listeners.delete(taskId);
          shared.forget(taskId);
          probe.forget(taskId);
        }
      };
    },
    // Only a followed task's reads are shared: its notifications are what keeps them honest.
    read: (taskId, key, fresh, run) => (listeners.has(taskId) ? shared.read(taskId, key, fresh, run) : run()),
    probes: true,
  };
}
