import { CHANNELS, taskIdsOf } from "@runifold/sdk";
import type postgres from "postgres";

type Listener = () => void;

/**
 * One LISTEN connection per process fanned out to in-process subscribers by task ID. Subscribers
 * re-read the store on every call: a notification only says "look again", it never carries state,
 * so a lost or duplicated one cannot show a transition the store did not commit. On reconnect every
 * subscriber is poked, since notifications sent while disconnected are gone.
 */
export type TaskFeed = { subscribe(taskId: string, listener: Listener): () => void };

const feeds = new WeakMap<postgres.Sql, Promise<TaskFeed>>();

export function getTaskFeed(sql: postgres.Sql): Promise<TaskFeed> {
  let feed = feeds.get(sql);
  if (!feed) {
    feed = createTaskFeed(sql);
    feeds.set(sql, feed);
    feed.catch(() => feeds.delete(sql));
  }
  return feed;
}

async function createTaskFeed(sql: postgres.Sql): Promise<TaskFeed> {
  const listeners = new Map<string, Set<Listener>>();
  const pokeAll = () => {
    for (const set of listeners.values()) for (const listener of set) listener();
  };
  await sql.listen(
    CHANNELS.task,
    (payload) => {
      for (const taskId of taskIdsOf(payload)) for (const listener of listeners.get(taskId) ?? []) listener();
    },
    pokeAll,
  );
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
        if (set.size === 0) listeners.delete(taskId);
      };
    },
  };
}
