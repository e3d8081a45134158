import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { bounded } from "./bounded";

type Sql = postgres.Sql;

export type ListenHandlers = Record<string, (payload: string) => void>;

export type WatchedListenOptions = {
  /**
   * LISTEN is in place: at start (`resubscribed` false) and after every re-subscribe (true). What was
   * notified while no connection listened is gone, so a caller re-reads what it follows here.
   */
  onListen: (resubscribed: boolean) => void;
  /** How often the pool NOTIFYs the private heartbeat channel. Default 5 s. */
  heartbeatMs?: number;
  /** A heartbeat not heard this long after its NOTIFY committed (or a LISTEN not answered) counts as a dead connection. Default 5 s. */
  timeoutMs?: number;
  /** Told why the listen connection was replaced ("connection closed", "heartbeat not heard", a connect error). */
  onReplace?: (reason: string) => void;
  /** application_name of the listen connection; default the pool's own with "-listen". */
  applicationName?: string;
};

export type WatchedListen = {
  /** Resolves once LISTEN is first in place (never rejects; stop() settles it too). */
  readonly ready: Promise<void>;
  /** Whether a listen connection is believed live now (false between a death and the re-subscribe). */
  live(): boolean;
  /** How many times LISTEN was set up again after the first. */
  resubscribes(): number;
  stop(): Promise<void>;
};

/**
 * LISTEN that survives its connection, for the worker's wake-ups and the web's task feed. postgres.js
 * (3.4.9) re-listens once when its listen connection closes and gives up silently when that one try
 * fails — as it does while a failover has no writable host yet — so after a promotion the process
 * hears nothing until it restarts (docs/deploy.md "High availability"). Here a connection of our own
 * (max 1, no idle or lifetime limit, the pool's hosts and credentials) LISTENs every channel plus a
 * private heartbeat channel; the pool NOTIFYs that channel every `heartbeatMs`, so a listen
 * connection that died without a close, or sits on another server than the one taking writes, shows
 * as a heartbeat not heard back. On a close or a missed heartbeat the connection is dropped and a
 * fresh one LISTENs again (retrying with backoff through an outage), then `onListen(true)` tells the
 * caller to re-read what the gap may have hidden.
 */
export function watchedListen(sql: Sql, handlers: ListenHandlers, options: WatchedListenOptions): WatchedListen {
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const beat = `runifold_listen_${randomBytes(6).toString("hex")}`;
  const channels = [beat, ...Object.keys(handlers)];
  const applicationName = options.applicationName ?? `${String(sql.options.connection?.application_name ?? "runifold")}-listen`;
  let generation = 0;
  let current: Sql | undefined;
  let live = false;
  let stopped = false;
  let opened = 0;
  let failures = 0;
  let expected: string | undefined;
  let beatSeq = 0;
  let beating = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  const open = async () => {
    retryTimer = undefined;
    if (stopped) return;
    const gen = ++generation;
    // The pool's parsed options (hosts, port list, credentials, TLS, target_session_attrs): postgres.js
    // accepts them as they are, which is how its own sql.listen makes its connection.
    const conn = postgres({
      ...sql.options,
      max: 1,
      idle_timeout: null,
      max_lifetime: null,
      fetch_types: false,
      connection: { ...sql.options.connection, application_name: applicationName },
      onnotify(channel: string, payload: string) {
        if (gen !== generation) return;
        if (channel === beat) {
          if (payload === expected) expected = undefined;
          return;
        }
        handlers[channel]?.(payload);
      },
      onclose() {
        if (gen === generation && live) replace("connection closed");
      },
    } as unknown as postgres.Options<Record<string, postgres.PostgresType>>);
    current = conn;
    try {
      await bounded(conn.unsafe(channels.map((c) => `LISTEN "${c.replace(/"/g, '""')}"`).join("; ")), timeoutMs);
    } catch (error) {
      void endQuietly(conn);
      if (gen !== generation || stopped) return;
      failures++;
      options.onReplace?.(`listen failed: ${(error as Error).message}`);
      // Through an outage: 250 ms, 500 ms, … up to one heartbeat period between tries.
      retryTimer = setTimeout(() => void open(), Math.min(heartbeatMs, 250 * 2 ** Math.min(failures - 1, 6)));
      retryTimer.unref();
      return;
    }
    if (gen !== generation || stopped) {
      void endQuietly(conn); // stopped while it connected
      return;
    }
    failures = 0;
    live = true;
    expected = undefined;
    opened++;
    markReady();
    options.onListen(opened > 1);
  };

  const replace = (reason: string) => {
    if (stopped || !live) return;
    live = false;
    expected = undefined;
    options.onReplace?.(reason);
    const old = current;
    current = undefined;
    generation++; // the old connection's late notifications and close are ignored from here
    if (old) void endQuietly(old);
    void open();
  };

  const heartbeat = async () => {
    if (stopped || !live || beating) return;
    beating = true;
    const gen = generation;
    const token = `${++beatSeq}`;
    try {
      expected = token;
      await bounded(sql`SELECT pg_notify(${beat}, ${token})`, timeoutMs);
    } catch {
      // The pool cannot reach a writable host either: that says nothing about the listen connection.
      if (expected === token) expected = undefined;
      beating = false;
      return;
    }
    setTimeout(() => {
      beating = false;
      if (gen === generation && expected === token) replace("heartbeat not heard");
    }, timeoutMs).unref();
  };
  const timer = setInterval(() => void heartbeat(), heartbeatMs);
  timer.unref();
  void open();

  const stop = async () => {
    endHooks.get(sql)?.delete(stop);
    stopped = true;
    live = false;
    clearInterval(timer);
    if (retryTimer) clearTimeout(retryTimer);
    generation++;
    markReady();
    const conn = current;
    current = undefined;
    if (conn) await endQuietly(conn);
  };
  onPoolEnd(sql, stop);
  return { ready, live: () => live, resubscribes: () => Math.max(0, opened - 1), stop };
}

const endHooks = new WeakMap<Sql, Set<() => Promise<void>>>();

/**
 * Ending the pool ends its watched listens, as postgres.js's own sql.end() ends the connection its
 * sql.listen made: a process or test that ends its pool leaves no listen connection retrying behind.
 */
function onPoolEnd(sql: Sql, hook: () => Promise<void>) {
  let hooks = endHooks.get(sql);
  if (!hooks) {
    const set = new Set<() => Promise<void>>();
    hooks = set;
    endHooks.set(sql, set);
    const end = sql.end.bind(sql);
    sql.end = async (options) => {
      await Promise.all([...set].map((h) => h()));
      return end(options);
    };
  }
  hooks.add(hook);
}

/** Ends a listen connection without waiting on a query that may never settle (postgres.js #1154). */
function endQuietly(conn: Sql): Promise<void> {
  return bounded(conn.end({ timeout: 0 }), 2_000).catch(() => {});
}
